// The few lines a tool page carries for a run sent before its scripts have come (decision 192), run in a
// sandbox with a fake document and window: the run form's native submit stops the page's unfinished
// downloads; any other form, a submit already taken over, or a hydrated page leaves them alone.
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { RUN_FORM_ATTRIBUTE, submitBeforeScriptsSource } from './submit-before-scripts'

function sandbox() {
  const listeners: Array<(event: unknown) => void> = []
  const state = { stops: 0 }
  const document = {
    documentElement: { dataset: {} as Record<string, string> },
    addEventListener: (type: string, listener: (event: unknown) => void) => void (type === 'submit' && listeners.push(listener)),
  }
  runInNewContext(submitBeforeScriptsSource(), { document, window: { stop: () => void (state.stops += 1) } })
  const form = (attributes: string[]) => ({ hasAttribute: (name: string) => attributes.includes(name) })
  const submit = (target: unknown, defaultPrevented = false) => listeners.forEach((listener) => listener({ target, defaultPrevented }))
  return { state, form, submit, hydrate: () => void (document.documentElement.dataset.hydrated = 'true'), listeners }
}

describe('the lines a tool page carries for a run sent before its scripts come', () => {
  it('stops the page\'s downloads when the run form is sent natively', () => {
    const page = sandbox()
    expect(page.listeners).toHaveLength(1)
    page.submit(page.form([RUN_FORM_ATTRIBUTE]))
    expect(page.state.stops).toBe(1)
  })

  it('leaves them alone for another form, a submit taken over, or a hydrated page', () => {
    const page = sandbox()
    page.submit(page.form(['data-other']))
    page.submit(page.form([RUN_FORM_ATTRIBUTE]), true)
    page.submit(null)
    page.hydrate()
    page.submit(page.form([RUN_FORM_ATTRIBUTE]))
    expect(page.state.stops).toBe(0)
  })
})
