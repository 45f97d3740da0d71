import { describe, expect, it } from 'vitest'
import { deservesReadyMail, resultReadyMail } from './ready-mail.server'

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 25, 0, 0, seconds))
const job = {
  user_id: 'u1',
  api_key_id: null,
  batch_id: null,
  test_mode: false,
  status: 'succeeded' as const,
  outcome: 'success' as const,
  created_at: at(0),
  finished_at: at(61),
}

describe('the result-ready mail', () => {
  it('is earned by a signed-in page run that took longer than a minute from submission to result', () => {
    expect(deservesReadyMail(job)).toBe(true)
    expect(deservesReadyMail({ ...job, finished_at: at(60) })).toBe(false)
  })

  it('is not sent for visitors, API keys, batches, test keys, failures or runs that found no face', () => {
    expect(deservesReadyMail({ ...job, user_id: null })).toBe(false)
    expect(deservesReadyMail({ ...job, api_key_id: 'k' })).toBe(false)
    expect(deservesReadyMail({ ...job, batch_id: 'b' })).toBe(false)
    expect(deservesReadyMail({ ...job, test_mode: true })).toBe(false)
    expect(deservesReadyMail({ ...job, status: 'failed', outcome: 'failed' })).toBe(false)
    expect(deservesReadyMail({ ...job, outcome: 'no_face' })).toBe(false)
  })

  it('links to the run on its tool page and to the history', () => {
    const mail = resultReadyMail('ada@example.test', 'Ada', { id: 'j1', tool: 'image-enhancer', original_name: 'holiday.jpg' })
    expect(mail.subject).toBe('Your image enhancer result is ready')
    expect(mail.link).toBe('http://localhost:3000/tools/image-enhancer?job=j1')
    expect(mail.text).toContain('Hi Ada,')
    expect(mail.text).toContain('holiday.jpg')
    expect(mail.text).toContain('http://localhost:3000/history')
    expect(mail.html).toContain('href="http://localhost:3000/tools/image-enhancer?job=j1"')
  })
})
