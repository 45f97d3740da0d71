// CSV cells a spreadsheet opens safely (RFC 4180 quoting) and never runs as a formula: a cell that
// starts with = + - @ (or a tab or carriage return, which some spreadsheets skip before reading one)
// gets a leading apostrophe, as OWASP's CSV injection advice has it.
const FORMULA_START = /^[=+\-@\t\r]/

export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value)
  if (FORMULA_START.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export function csvLine(cells: unknown[]): string {
  return cells.map(csvCell).join(',') + '\r\n'
}
