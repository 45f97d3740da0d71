import { useLocation } from '@remix-run/react'
import { useEffect, useRef } from 'react'

/**
 * A <details> element that works without JavaScript and, once hydrated, closes on every route
 * change, on Escape and on a click outside it.
 */
export function useClosingDetails<T extends HTMLDetailsElement>() {
  const ref = useRef<T>(null)
  const location = useLocation()

  // Closed on a route change only, not on mount: on a slow connection a visitor opens the menu before the
  // page is hydrated, and hydration must leave it open.
  const shownAt = useRef(location.key)
  useEffect(() => {
    if (shownAt.current === location.key) return
    shownAt.current = location.key
    if (ref.current) ref.current.open = false
  }, [location.key])

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
