// The few lines a job's page carries for a browser whose scripts have not come (decision 187), run in a
// sandbox with a fake document, fetch and clock: they reload once the job has ended, keep asking while it
// runs, and stop as soon as the page has hydrated.
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { followBeforeScriptsSource } from './follow-before-scripts'

function sandbox(statuses: string[]) {
  const asked: string[] = []
  const timers: Array<() => void> = []
  const state = { reloads: 0, hydrated: false }
  const context = {
    document: { documentElement: { dataset: {} as Record<string, string> } },
    location: { reload: () => void (state.reloads += 1) },
    setTimeout: (callback: () => void) => void timers.push(callback),
    fetch: async (url: string) => {
      asked.push(url)
      const status = statuses.shift() ?? 'running'
      return { ok: true, json: async () => ({ status }) }
    },
  }
  runInNewContext(followBeforeScriptsSource('0b7e2c5e-8a4f-4a57-9a57-2f0f4b1b6a11'), context)
  /** Fires the next timer and lets its fetch settle. */
  const tick = async () => {
    timers.shift()?.()
    for (let i = 0; i < 5; i++) await Promise.resolve()
  }
  const hydrate = () => {
    context.document.documentElement.dataset.hydrated = 'true'
  }
  return { asked, timers, state, tick, hydrate }
}

describe('the follower a job page carries until its scripts come', () => {
  it('asks for the job every beat and reloads once it has ended', async () => {
    const page = sandbox(['queued', 'running', 'succeeded'])
    for (let i = 0; i < 3; i++) await page.tick()
    expect(page.asked).toEqual(Array(3).fill('/api/jobs/0b7e2c5e-8a4f-4a57-9a57-2f0f4b1b6a11/'))
    expect(page.state.reloads).toBe(1)
    expect(page.timers).toHaveLength(0)
  })

  it('reloads for a failed job too (the page shows why)', async () => {
    const page = sandbox(['failed'])
    await page.tick()
    expect(page.state.reloads).toBe(1)
  })

  it('stops once the page has hydrated: no more asking, no reload', async () => {
    const page = sandbox(['running', 'succeeded'])
    await page.tick()
    page.hydrate()
    await page.tick()
    expect(page.state.reloads).toBe(0)
    expect(page.timers).toHaveLength(0)
  })

  it('escapes what could close its script element', () => {
    expect(followBeforeScriptsSource('</script><script>alert(1)')).not.toContain('</script>')
  })
})
