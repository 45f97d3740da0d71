// Words the key endpoints, the gate and the Developers section share. Client-safe.
export const KEY_MALFORMED = 'This API key is malformed: check that it was copied whole (it starts with fs_live_ or fs_test_).'
export const KEY_INVALID = 'This API key is not valid: it was revoked or never existed.'
export const KEY_NOT_FOUND = 'No API key with this id.'
export const KEYS_NEED_SESSION = 'API keys cannot create or revoke API keys: sign in on the dashboard or use a Token from /api/auth/login/.'
export const KEY_RATE_LIMITED = 'Too many requests with this API key. Slow down and retry after the time in Retry-After.'
export const KEY_LIMIT_REACHED = 'You have reached the limit of active API keys. Revoke one first.'
export const KEY_CREATED = 'Your new API key is shown below, once. Copy it now: it cannot be shown again.'
export const KEY_REVOKED = 'The API key was revoked.'
export const KEY_SENT_TWICE =
  'Send the API key once: as Authorization: Bearer <key>, or alone in X-Api-Key (not beside another Authorization header or another key).'
/** A test key asked to move live credits (decision 162): test mode never touches a real balance. */
export const TEST_KEY_NO_LIVE_CREDITS = 'A test key (fs_test_) never moves, grants or spends live credits: use a live key or sign in.'
