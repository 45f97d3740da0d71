import { createContext, useContext } from 'react'

const NonceContext = createContext<string | undefined>(undefined)
export const NonceProvider = NonceContext.Provider
/** The CSP nonce of this response, for the inline scripts Remix renders. */
export const useNonce = () => useContext(NonceContext)
