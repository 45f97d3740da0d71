// The home page's four questions (spec §2). Answers state what the product really does (DESIGN.md).
import { STORAGE_SENTENCE } from '~/catalog/retention'
import { creditsNoun, formatCredits } from '~/utils/credits-word'
export interface FaqEntry {
  question: string
  answer: string
}

export function homeFaq(facts: { guestDaily: number; userFloor: number; signupBonus: number }): FaqEntry[] {
  return [
    {
      question: 'How do credits work?',
      answer:
        `Each tool run costs 1 or 2 credits, charged only when the run delivers: a failed run is refunded. ` +
        `Visitors get ${formatCredits(facts.guestDaily)} a day. A new account receives ${facts.signupBonus} welcome ${creditsNoun(facts.signupBonus)} ` +
        `once its email is verified, and any balance under ${facts.userFloor} is topped up to ${facts.userFloor} every day.`,
    },
    {
      question: 'What happens to the images I upload?',
      answer:
        `${STORAGE_SENTENCE} An upload waits for its run encrypted (AES-256-GCM) in the database, so that any of our ` +
        'workers can take it; it is never written to disk in the clear. A result can be read only by the account that made it.',
    },
    {
      question: 'Do results keep the original quality?',
      answer:
        'Yes. Results are encoded losslessly as PNG at the original resolution (the image enhancer and the face restorer upscale on ' +
        'purpose). The SVG converter lets you pick PNG, JPEG or WebP and the scale.',
    },
    {
      question: 'Can I buy more credits or use an API?',
      answer:
        'Purchasing is temporarily paused, so today credits come from the daily refresh and the welcome bonus. ' +
        'The API is open: create a key on your dashboard and read the API page for every endpoint.',
    },
  ]
}
