import { useEffect, useState } from 'react'

// After the first hydration every later mount can render the enhanced UI straight away.
let hydratedOnce = false

/** False on the server and during hydration, true once JavaScript runs. */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(hydratedOnce)
  useEffect(() => {
    hydratedOnce = true
    setHydrated(true)
  }, [])
  return hydrated
}
