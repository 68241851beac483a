package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/carteiro/carteiro"
)

const templateColumns = `id, org_id, name, subject, html, text_payload, variables, is_active, format, source_locale, starter_slug, created_at, updated_at`

// templateVariableRow is a variable declaration as stored in the JSON
// column; the domain type carries no encoding tags.
type templateVariableRow struct {
	Name         string  `json:"name"`
	Description  *string `json:"description,omitempty"`
	DefaultValue any     `json:"defaultValue,omitempty"`
}

func encodeVariables(vs []carteiro.TemplateVariable) string {
	rows := make([]templateVariableRow, len(vs))
	for i, v := range vs {
		rows[i] = templateVariableRow(v)
	}
	return *jsonString(rows)
}

func scanTemplate(r row) (*carteiro.Template, error) {
	var t carteiro.Template
	var vars string
	var created, updated int64
	if err := r.Scan(&t.ID, &t.OrgID, &t.Name, &t.Subject, &t.HTML, &t.TextPayload, &vars, &t.IsActive, &t.Format,
		&t.SourceLocale, &t.StarterSlug, &created, &updated); err != nil {
		return nil, err
	}
	var rows []templateVariableRow
	if err := json.Unmarshal([]byte(vars), &rows); err != nil {
		return nil, fmt.Errorf("template %s variables: %w", t.ID, err)
	}
	t.Variables = make([]carteiro.TemplateVariable, len(rows))
	for i, v := range rows {
		t.Variables[i] = carteiro.TemplateVariable(v)
	}
	t.CreatedAt, t.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &t, nil
}

// CreateTemplate inserts t; a name already used in the organization is
// ErrConflict (D38).
func (q *Queries) CreateTemplate(ctx context.Context, t *carteiro.Template) error {
	_, err := q.exec(ctx, `INSERT INTO templates (`+templateColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.OrgID, t.Name, t.Subject, t.HTML, t.TextPayload, encodeVariables(t.Variables), t.IsActive, string(t.Format),
		t.SourceLocale, t.StarterSlug, micros(t.CreatedAt), micros(t.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: create template: %w", classify(err))
	}
	return nil
}

// UpdateTemplate stores every field of t.
func (q *Queries) UpdateTemplate(ctx context.Context, t *carteiro.Template) error {
	n, err := q.exec(ctx, `UPDATE templates SET name = ?, subject = ?, html = ?, text_payload = ?, variables = ?, is_active = ?,
		format = ?, source_locale = ?, starter_slug = ?, updated_at = ? WHERE id = ? AND org_id = ?`,
		t.Name, t.Subject, t.HTML, t.TextPayload, encodeVariables(t.Variables), t.IsActive, string(t.Format), t.SourceLocale,
		t.StarterSlug, micros(t.UpdatedAt), t.ID, t.OrgID)
	if err != nil {
		return fmt.Errorf("store: update template %s: %w", t.ID, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// Template returns a template of the organization.
func (q *Queries) Template(ctx context.Context, orgID, id string) (*carteiro.Template, error) {
	t, err := scanTemplate(q.queryRow(ctx, `SELECT `+templateColumns+` FROM templates WHERE id = ? AND org_id = ?`, id, orgID))
	if err != nil {
		return nil, fmt.Errorf("store: template %s: %w", id, classify(err))
	}
	return t, nil
}

// TemplateIDByName returns the id of the organization's template named
// name: a duplicate's 409 names it (D11).
func (q *Queries) TemplateIDByName(ctx context.Context, orgID, name string) (string, error) {
	var id string
	if err := q.queryRow(ctx, `SELECT id FROM templates WHERE org_id = ? AND name = ?`, orgID, name).Scan(&id); err != nil {
		return "", fmt.Errorf("store: template by name: %w", classify(err))
	}
	return id, nil
}

// ListTemplates returns the organization's templates, oldest first.
func (q *Queries) ListTemplates(ctx context.Context, orgID string) ([]*carteiro.Template, error) {
	rs, err := q.query(ctx, `SELECT `+templateColumns+` FROM templates WHERE org_id = ? ORDER BY created_at, id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: list templates: %w", classify(err))
	}
	defer rs.Close()
	out := []*carteiro.Template{}
	for rs.Next() {
		t, err := scanTemplate(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list templates: %w", classify(err))
		}
		out = append(out, t)
	}
	return out, rs.Err()
}

// DeleteTemplate removes a template for good (4.3).
func (q *Queries) DeleteTemplate(ctx context.Context, orgID, id string) error {
	n, err := q.exec(ctx, `DELETE FROM templates WHERE id = ? AND org_id = ?`, id, orgID)
	if err != nil {
		return fmt.Errorf("store: delete template %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
