import { describe, expect, it } from 'vitest'
import { TOOLS } from '~/catalog/tools'
import type { JobView } from '~/features/jobs/view'
import { unusableFileMessage } from './tool-messages'
import { announcement, NO_FACE_MESSAGE, notEnoughCreditsText, workspacePhase, type PhaseInput } from './workspace-state'

const blurrer = TOOLS['face-blurrer']
const idle: PhaseInput = {
  tool: blurrer,
  missingModels: [],
  checking: false,
  rejection: null,
  status: 'idle',
  progress: null,
  facesFound: null,
  needsSignIn: false,
  pageResult: undefined,
  job: null,
  balance: 5,
  cost: 1,
}
const job = (over: Partial<JobView>): JobView => ({
  id: 'j',
  tool: 'face-blurrer',
  status: 'running',
  progress: 35,
  stage: 'Detecting faces',
  resultUrl: null,
  filename: null,
  error: null,
  remaining: 4,
  refunded: false,
  facesFound: null,
  note: null,
  handedBack: false,
  ...over,
})

describe('workspace phase', () => {
  it('walks a browser run: empty, checking, chosen, uploading, processing, done', () => {
    expect(workspacePhase(idle)).toBe('empty')
    expect(workspacePhase({ ...idle, checking: true })).toBe('checking')
    expect(workspacePhase({ ...idle, rejection: 'Invalid file type: …' })).toBe('rejected')
    expect(workspacePhase({ ...idle, status: 'ready' })).toBe('chosen')
    expect(workspacePhase({ ...idle, status: 'processing', progress: { percent: 9, message: 'Uploading frame' } })).toBe('uploading')
    expect(workspacePhase({ ...idle, status: 'processing', progress: { percent: 35, message: 'Detecting faces' } })).toBe('processing')
    expect(workspacePhase({ ...idle, status: 'complete', facesFound: 3 })).toBe('done')
  })

  it('tells no face found apart from a result, in the browser, after a page post and from a job', () => {
    expect(workspacePhase({ ...idle, status: 'complete', facesFound: 0 })).toBe('no-face')
    const page = { ok: true as const, resultUrl: '/r', downloadUrl: '/r?download=1', filename: 'face-blurred.png', contentType: 'image/png', remaining: 5 }
    expect(workspacePhase({ ...idle, pageResult: { ...page, facesFound: 0 } })).toBe('no-face')
    expect(workspacePhase({ ...idle, pageResult: { ...page, facesFound: 2 } })).toBe('done')
    expect(workspacePhase({ ...idle, job: job({ status: 'succeeded', facesFound: 0 }) })).toBe('no-face')
  })

  it('follows a job a page without JavaScript waits for', () => {
    expect(workspacePhase({ ...idle, job: job({ status: 'queued' }) })).toBe('processing')
    expect(workspacePhase({ ...idle, job: job({ status: 'running' }) })).toBe('processing')
    expect(workspacePhase({ ...idle, job: job({ status: 'failed', refunded: true }) })).toBe('failed')
  })

  it('says a balance is short before the click, after a 402, and after a failed page post', () => {
    expect(workspacePhase({ ...idle, balance: 0 })).toBe('no-credits')
    expect(workspacePhase({ ...idle, balance: 0, status: 'ready' })).toBe('no-credits')
    expect(workspacePhase({ ...idle, balance: 0, status: 'error' })).toBe('no-credits')
    expect(workspacePhase({ ...idle, status: 'error' })).toBe('failed')
    expect(workspacePhase({ ...idle, balance: null, pageResult: { ok: false, status: 402, error: 'Not enough credits', remaining: 0 } })).toBe('no-credits')
    expect(workspacePhase({ ...idle, pageResult: { ok: false, status: 500, error: 'x', remaining: 5 } })).toBe('failed')
    // A cap refusal (402 with a balance that covers the run) shows its own message.
    expect(workspacePhase({ ...idle, balance: 19, pageResult: { ok: false, status: 402, error: 'monthly cap', remaining: 19 } })).toBe('failed')
    expect(workspacePhase({ ...idle, balance: 0, pageResult: { ok: false, status: 402, error: 'short', remaining: 0 } })).toBe('no-credits')
  })

  it('shows a file the server refused for what it is (413, 415) as a refused file, not a failed run', () => {
    const refused = (status: number) => ({ ok: false as const, status, error: unusableFileMessage('File too large (max 15MB)'), remaining: null })
    expect(refused(413).error).toBe("This file can't be used: file too large (max 15MB).")
    expect(workspacePhase({ ...idle, pageResult: refused(413) })).toBe('rejected')
    expect(workspacePhase({ ...idle, pageResult: refused(415) })).toBe('rejected')
    expect(workspacePhase({ ...idle, pageResult: refused(500) })).toBe('failed')
  })

  it('asks a visitor to sign in for a tool that needs an account before any file is chosen', () => {
    const svg = { ...idle, tool: TOOLS['svg-converter'] }
    expect(workspacePhase({ ...svg, needsSignIn: true })).toBe('sign-in')
  })

  it('puts a missing model first, and a sign-in refusal apart from failures', () => {
    expect(workspacePhase({ ...idle, missingModels: ['yunet'], status: 'ready' })).toBe('model-missing')
    const svg = { ...idle, tool: TOOLS['svg-converter'] }
    expect(workspacePhase({ ...svg, status: 'error', needsSignIn: true })).toBe('sign-in')
    expect(workspacePhase({ ...svg, pageResult: { ok: false, status: 401, error: 'Sign in', remaining: null } })).toBe('sign-in')
  })
})

describe('the words of the states', () => {
  const allowances = { guestDaily: 5, userFloor: 10, signupBonus: 50 }
  it('gives a visitor the cost, the balance, the refresh time and the sign-up offer', () => {
    const text = notEnoughCreditsText({ cost: 2, balance: 1, signedIn: false, allowances })
    expect(text.lines).toEqual([
      'A run costs 2 credits; your balance is 1 credit.',
      'Free credits are shared by the visitors of one network and renew at 00:00 UTC.',
    ])
    expect(text.signUp).toBe('Create a free account for 50 credits')
  })

  it('offers a signed-in user no sign-up, and the daily top-up when there is one', () => {
    const text = notEnoughCreditsText({ cost: 1, balance: 0, signedIn: true, allowances })
    expect(text.signUp).toBeNull()
    expect(text.lines[1]).toContain('topped up to 10')
    expect(notEnoughCreditsText({ cost: 1, balance: 0, signedIn: true, allowances: { ...allowances, userFloor: 0 } }).lines).toHaveLength(1)
  })

  it('announces each ending in its own words; no face is never announced as secured', () => {
    expect(announcement('done', { doneTitle: 'Image secured', error: null })).toContain('Image secured')
    expect(announcement('no-face', { doneTitle: 'Image secured', error: null })).toBe(NO_FACE_MESSAGE)
    expect(announcement('failed', { doneTitle: 'x', error: 'Unable to blur faces.' })).toBe('Unable to blur faces. You were not charged: a run that fails is refunded in full.')
  })
})

describe('a team member past their monthly cap', () => {
  it('is refused before sending: over-cap before and after choosing a file, not-enough-credits first', () => {
    expect(workspacePhase({ ...idle, overCap: true })).toBe('over-cap')
    expect(workspacePhase({ ...idle, overCap: true, status: 'ready' })).toBe('over-cap')
    expect(workspacePhase({ ...idle, overCap: false, status: 'ready' })).toBe('chosen')
    // A team balance that is short says so first: the cap is not the reason then.
    expect(workspacePhase({ ...idle, overCap: true, balance: 0, status: 'ready' })).toBe('no-credits')
  })

  it('shows a server refusal past the cap (the page post, or a browser run refused meanwhile) as over-cap, not as a failure', () => {
    const refusedPage = { ok: false as const, status: 402, error: 'This run would pass your monthly cap of 1 credit on team Acme (1 used this month).', remaining: 19 }
    expect(workspacePhase({ ...idle, pageResult: refusedPage, overCap: true, balance: 19 })).toBe('over-cap')
    expect(workspacePhase({ ...idle, status: 'error', overCap: true, balance: 19 })).toBe('over-cap')
    // Without the headroom (not yet re-read) it stays the failure it was.
    expect(workspacePhase({ ...idle, status: 'error', overCap: false, balance: 19 })).toBe('failed')
    expect(announcement('over-cap', { doneTitle: '', error: refusedPage.error })).toBe(refusedPage.error)
  })
})

