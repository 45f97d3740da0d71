// The console's lists are read a page at a time: one row more than a page is asked for, so the page
// knows whether there is a next one without counting the whole table.
export const CONSOLE_PAGE_SIZE = 25

export interface Page<T> {
  rows: T[]
  hasMore: boolean
}

export function offsetOf(page: number, size = CONSOLE_PAGE_SIZE): number {
  return (Math.max(1, page) - 1) * size
}

/** `rows` was read with limit size + 1. */
export function pageOf<T>(rows: T[], size = CONSOLE_PAGE_SIZE): Page<T> {
  return { rows: rows.slice(0, size), hasMore: rows.length > size }
}

/** ?page=N from a URL: a whole number of at least 1, else 1. */
export function pageParam(url: URL, name = 'page'): number {
  const n = Number(url.searchParams.get(name))
  return Number.isSafeInteger(n) && n >= 1 && n <= 100_000 ? n : 1
}
