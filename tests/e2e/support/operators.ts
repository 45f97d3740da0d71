// The accounts the e2e studio treats as operators (playwright.config.ts sets OPERATOR_EMAILS from
// this): one per project, so the JavaScript and no-JavaScript journeys never share one, and one for
// weighing the console's pages (page-weight.spec.ts).
export const OPERATOR_EMAILS = ['operator-js@example.test', 'operator-no-js@example.test', 'operator-weight@example.test']
