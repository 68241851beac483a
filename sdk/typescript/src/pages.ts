/**
 * Iterates the items of a cursor-paginated list (D27): fetchPage gets the
 * `after` of the page to read (undefined for the first) and returns its
 * items and `nextCursor`, null after the last page. Pages are fetched as the
 * caller iterates, so breaking out early reads no more.
 */
export async function* cursorItems<T>(
  fetchPage: (after: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): AsyncGenerator<T, void, undefined> {
  let after: string | undefined;
  for (;;) {
    const page = await fetchPage(after);
    yield* page.items;
    if (page.nextCursor === null || page.items.length === 0) {
      return;
    }
    after = page.nextCursor;
  }
}

/**
 * Iterates the items of an offset-paginated list (audiences, contacts: 4.4):
 * fetchPage gets the offset and returns its items and the list's total.
 */
export async function* offsetItems<T>(
  fetchPage: (offset: number) => Promise<{ items: T[]; total: number }>,
): AsyncGenerator<T, void, undefined> {
  let offset = 0;
  for (;;) {
    const page = await fetchPage(offset);
    yield* page.items;
    offset += page.items.length;
    if (page.items.length === 0 || offset >= page.total) {
      return;
    }
  }
}
