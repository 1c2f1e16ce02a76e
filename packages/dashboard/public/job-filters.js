// The job list's filters (status, kind, queue, concurrency key) and the page's address: the
// applied filters are the address's query (`?status=FAILED&queue=emails&concurrencyKey=acme`),
// so a filtered view can be shared, reloaded, and walked with the browser's back button.

/** The filters of `GET /jobs` the page offers, as named in its query and the API's. */
export const FILTER_NAMES = ['status', 'kind', 'queue', 'concurrencyKey'];

/** The filters in `search` (a `location.search`), those with a value only. */
export function filtersFromAddress(search) {
  const params = new URLSearchParams(search);
  const filters = {};
  for (const name of FILTER_NAMES) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

/** The filters a submitted form holds, those with a value only (trimmed). */
export function filtersFromForm(form) {
  const filters = {};
  for (const name of FILTER_NAMES) {
    const value = String(form.elements[name]?.value ?? '').trim();
    if (value) filters[name] = value;
  }
  return filters;
}

/** Shows `filters` in the form's fields. */
export function fillFilterForm(form, filters) {
  for (const name of FILTER_NAMES) {
    const field = form.elements[name];
    if (field) field.value = filters[name] ?? '';
  }
}

/**
 * The page's address with `filters` as its query; other parameters (such as `job`) are kept.
 * `search` is the current `location.search`.
 */
export function addressWithFilters(search, filters) {
  const params = new URLSearchParams(search);
  for (const name of FILTER_NAMES) {
    if (filters[name]) params.set(name, filters[name]);
    else params.delete(name);
  }
  const query = params.toString();
  return query === '' ? location.pathname : `${location.pathname}?${query}`;
}

/** The query of `GET /jobs` for `filters`. */
export function jobListQuery(filters, limit) {
  const query = new URLSearchParams();
  for (const name of FILTER_NAMES) if (filters[name]) query.set(name, filters[name]);
  query.set('limit', String(limit));
  return query;
}
