// parseCSV reads RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF)
// into rows of strings; a BOM at the start is dropped.
export function parseCSV(text) {
  const rows = [];
  let row = [], field = '', i = 0, quoted = false;
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') { field += '"'; i++; } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field); field = '';
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
    } else field += c;
  }
  if (field !== '' || row.length) { row.push(field); if (row.length > 1 || row[0] !== '') rows.push(row); }
  return rows;
}

const NAMES = { email: 'email', e_mail: 'email', mail: 'email', firstname: 'firstName', first_name: 'firstName', first: 'firstName',
  lastname: 'lastName', last_name: 'lastName', last: 'lastName' };

// toContacts maps CSV rows (the first is the header) to contacts: email,
// firstName, lastName; every other column goes into metadata. Rows without
// an email, and repeated addresses, become errors with their line number.
export function toContacts(rows) {
  if (rows.length === 0) return { contacts: [], errors: [], lines: [] };
  const header = rows[0].map(x => x.trim());
  const keys = header.map(x => NAMES[x.toLowerCase().replace(/[\s-]/g, '_')] || null);
  const contacts = [], errors = [], lines = [], seen = new Set();
  if (!keys.includes('email')) return { contacts, errors: [{ line: 1, email: '', reason: 'header' }], lines };
  rows.slice(1).forEach((r, n) => {
    const c = { metadata: {} };
    r.forEach((v, j) => {
      v = v.trim();
      if (keys[j]) { if (v) c[keys[j]] = v; } else if (header[j] && v) c.metadata[header[j]] = v;
    });
    if (Object.keys(c.metadata).length === 0) delete c.metadata;
    if (!c.email) { errors.push({ line: n + 2, email: '', reason: 'missing_email' }); return; }
    // A second row for an address is reported here, with its own line,
    // so that the API's answers (by address) name one row each.
    const key = c.email.toLowerCase();
    if (seen.has(key)) { errors.push({ line: n + 2, email: c.email, reason: 'duplicate_row' }); return; }
    seen.add(key);
    contacts.push(c);
    lines.push(n + 2);
  });
  return { contacts, errors, lines };
}
