import { renderToString } from 'react-dom/server'
import { StaticRouter } from 'react-router-dom/server'
import { describe, expect, it } from 'vitest'
import { TOOLS } from '~/catalog/tools'
import { HISTORY_LINK } from '~/features/layout/nav'
import { LEAVE_PAGE_MAIL, LEAVE_PAGE_MESSAGE, ProgressPanel, type ProgressTiming } from './progress-panel'

const START = Date.UTC(2026, 10, 25, 0, 0, 0)
const steps = TOOLS['image-enhancer'].steps
const draw = (timing: ProgressTiming | null, percent = 40, failed = false) =>
  renderToString(
    <StaticRouter location="/tools/image-enhancer">
      <ProgressPanel progress={{ percent, message: 'Enhancing the entire frame' }} failed={failed} timing={timing} />
    </StaticRouter>,
  )

describe('the progress panel’s time', () => {
  it('shows the elapsed time and the time left, counted from the server’s clock on the first render', () => {
    const html = draw({ clock: { startedAt: START, estimateMs: 40_000 }, renderedAt: START + 12_000, signedIn: false, steps })
    expect(html).toContain('Elapsed <!-- -->12 s')
    // 45 % of the work in 12 s, though 40 s were expected: the run's own pace leads (decision 164).
    expect(html).toContain('About 15 s left')
    expect(html).toContain('Less than a minute left')
    expect(html).not.toContain(LEAVE_PAGE_MESSAGE)
  })

  it('says a long run can be left, links to the history and, signed in, promises the mail', () => {
    const guest = draw({ clock: { startedAt: START, estimateMs: 90_000 }, renderedAt: START + 5_000, signedIn: false, steps })
    expect(guest).toContain(LEAVE_PAGE_MESSAGE)
    expect(guest).toContain(`href="${HISTORY_LINK.to}"`)
    expect(guest).not.toContain(LEAVE_PAGE_MAIL)
    const member = draw({ clock: { startedAt: START, estimateMs: 90_000 }, renderedAt: START + 5_000, signedIn: true, steps })
    expect(member).toContain(LEAVE_PAGE_MAIL)
    // A run estimated short that has passed a minute can be left too.
    expect(draw({ clock: { startedAt: START, estimateMs: 20_000 }, renderedAt: START + 61_000, signedIn: false, steps })).toContain(LEAVE_PAGE_MESSAGE)
  })

  it('shows the stage only while uploading and for a run expected under 5 s', () => {
    const uploading = renderToString(
      <StaticRouter location="/tools/image-enhancer">
        <ProgressPanel progress={{ percent: 10, message: 'Loading the enhancer' }} timing={{ clock: { startedAt: START, estimateMs: 40_000 }, renderedAt: START + 2_000, signedIn: false, steps }} />
      </StaticRouter>,
    )
    expect(uploading).toContain('Elapsed <!-- -->2 s')
    expect(uploading).not.toContain(' left')
    expect(draw({ clock: { startedAt: START, estimateMs: 3_000 }, renderedAt: START + 1_000, signedIn: false, steps })).not.toContain(' left')
  })

  it('shows no time for a failed or finished run, nor without a clock', () => {
    const clock = { clock: { startedAt: START, estimateMs: 40_000 }, renderedAt: START + 1_000, signedIn: false, steps }
    expect(draw(clock, 40, true)).not.toContain('Elapsed')
    expect(draw(clock, 100)).not.toContain('Elapsed')
    expect(draw(null)).not.toContain('Elapsed')
  })
})
