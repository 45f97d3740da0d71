import '@remix-run/node'

declare module '@remix-run/node' {
  interface AppLoadContext {
    /** The nonce of this response's Content-Security-Policy, for inline scripts. */
    cspNonce?: string
  }
}
