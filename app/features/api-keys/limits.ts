// What a key may be, apart from the schema: pages that only show these load no validation code.
export const API_KEY_ENVIRONMENTS = ['live', 'test'] as const
export const API_KEY_NAME_MAX = 60
