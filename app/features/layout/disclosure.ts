import { useLocation } from '@remix-run/react'
import { useEffect, useRef } from 'react'

/**
 * A <details> element that works without JavaScript and, once hydrated, closes on every route
 * change, on Escape and on a click outside it.
 */
export function useClosingDetails<T extends HTMLDetailsElement>() {
  const ref = useRef<T>(null)
  const location = useLocation()

  useEffect(() => {
    if (ref.current) ref.current.open = false
  }, [location.key, location.pathname, location.search])

  useEffect(() => {
    function onPointerDown(event: PointerEvent) {
      const el = ref.current
      if (el?.open && event.target instanceof Node && !el.contains(event.target)) el.open = false
    }
    function onKeyDown(event: KeyboardEvent) {
      const el = ref.current
      if (event.key === 'Escape' && el?.open) {
        el.open = false
        el.querySelector('summary')?.focus()
      }
    }
    document.addEventListener('pointerdown', onPointerDown)
    document.addEventListener('keydown', onKeyDown)
    return () => {
      document.removeEventListener('pointerdown', onPointerDown)
      document.removeEventListener('keydown', onKeyDown)
    }
  }, [])

  return ref
}
