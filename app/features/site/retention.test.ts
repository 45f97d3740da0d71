// The words that must be true (issue 21, item 7): each defined once and used everywhere it is said.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { guestRenewalRule } from '~/features/credits/guest-rule'
import { GUEST_CREDITS_SHORT_MESSAGE } from '~/features/credits/visitor.server'
import { notEnoughCreditsText } from '~/features/tools/ui/workspace-state'
import { creditsNoun, formatCredits } from '~/utils/credits-word'
import { VALUES } from './about'
import { homeFaq } from './faq'
import { privacyPolicy } from './legal'
import { RESULT_KEPT_HOURS, STORAGE_SENTENCE } from '~/catalog/retention'

const APP = path.resolve(__dirname, '../..')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return sources(full)
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : []
  })
}
const files = sources(APP).map((file) => ({ file: path.relative(APP, file), text: readFileSync(file, 'utf8') }))

describe('the one sentence about what is stored', () => {
  it('says uploads go when the run ends and results stay encrypted for the hours the result store keeps them', () => {
    expect(STORAGE_SENTENCE).toBe(
      'Uploads are kept encrypted only until their run ends; results are kept encrypted for 24 hours, for you to download, then deleted.',
    )
    const store = files.find((f) => f.file === 'features/jobs/results.server.ts')!.text
    expect(store).toMatch(/RESULT_TTL_HOURS = RESULT_KEPT_HOURS/)
    expect(RESULT_KEPT_HOURS).toBe(24)
  })

  it('is the sentence of the FAQ, the privacy policy and the about page', () => {
    const faq = homeFaq({ guestDaily: 5, userFloor: 10, signupBonus: 50 }).find((e) => e.question === 'What happens to the images I upload?')
    expect(faq?.answer.startsWith(STORAGE_SENTENCE)).toBe(true)
    const deletion = privacyPolicy('support@example.com').sections.find((s) => s.id === 'deletion')
    expect(deletion?.paragraphs).toContain(STORAGE_SENTENCE)
    expect(VALUES.map((v) => v.text)).toContain(STORAGE_SENTENCE)
  })

  it('is written nowhere else, and nothing says the opposite', () => {
    for (const { file, text } of files) {
      if (file === 'catalog/retention.ts') continue
      expect(text, file).not.toMatch(/never stored|Uploads stored|only until their run ends|illustrative/i)
    }
    for (const page of ['root.tsx', 'routes/_index.tsx', 'routes/privacy.tsx']) {
      expect(files.find((f) => f.file === page)!.text, page).toMatch(/STORAGE_SENTENCE/)
    }
  })
})

describe('credits, pluralised in one helper', () => {
  it('says 1 credit and 0 or 2 credits', () => {
    expect(formatCredits(1)).toBe('1 credit')
    expect(formatCredits(0)).toBe('0 credits')
    expect(formatCredits(12500)).toBe('12,500 credits')
    expect(creditsNoun(1)).toBe('credit')
  })

  it('is the only place that chooses between credit and credits', () => {
    for (const { file, text } of files) {
      if (file === 'utils/credits-word.ts') continue
      expect(text, file).not.toMatch(/\?\s*'credit'\s*:\s*'credits'/)
    }
  })
})

describe("the guest renewal rule", () => {
  it('is the same words in the 402 and in the workspace panel', () => {
    const refusal = GUEST_CREDITS_SHORT_MESSAGE(2, 0, 'http://localhost:3000/login?mode=register', 50, '2026-11-26 00:00:00 UTC')
    expect(refusal).toContain(guestRenewalRule('2026-11-26 00:00:00 UTC'))
    const panel = notEnoughCreditsText({ cost: 2, balance: 0, signedIn: false, allowances: { guestDaily: 5, userFloor: 10, signupBonus: 50 } })
    expect(panel.lines).toContain(`${guestRenewalRule()}.`)
  })
})
