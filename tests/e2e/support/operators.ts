// The accounts the e2e studio treats as operators (playwright.config.ts sets OPERATOR_EMAILS from
// this): one per project, so the JavaScript and no-JavaScript journeys never share one.
export const OPERATOR_EMAILS = ['operator-js@example.test', 'operator-no-js@example.test']
