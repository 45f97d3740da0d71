// Terms of service and privacy policy (spec §2). Retention is stated as the product really works, in the
// site's one sentence about it (retention.ts).
import { REPORT_RETENTION_SENTENCE, RESULT_KEPT_HOURS, STORAGE_SENTENCE } from '~/catalog/retention'

export const LEGAL_LAST_UPDATED = 'October 16, 2025'

export interface LegalSection {
  id: string
  heading: string
  paragraphs: string[]
  list?: string[]
}

export interface LegalDocument {
  title: string
  intro: string
  sections: LegalSection[]
}

export function termsOfService(supportEmail: string): LegalDocument {
  return {
    title: 'Terms of Service',
    intro:
      'These terms govern your use of Facet Studio, its web screens and its API. Please read them together with our Privacy Policy.',
    sections: [
      {
        id: 'acceptance',
        heading: '1. Acceptance of terms',
        paragraphs: [
          'By using Facet Studio, as a visitor or with an account, you agree to these terms. If you do not agree, do not use the service.',
          'We may update these terms. The date at the top of this page shows the latest version, and continued use after a change means you accept it.',
        ],
      },
      {
        id: 'license',
        heading: '2. Use license',
        paragraphs: [
          'We grant you a limited, non-exclusive, non-transferable right to use the service for your personal or business work, subject to these terms.',
          'You keep every right to the images you upload and to the results you download. You may not resell access to the service, probe it for weaknesses without permission, or use automated means to get around its limits.',
        ],
      },
      {
        id: 'accounts',
        heading: '3. Accounts',
        paragraphs: [
          'You need a verified email address to create an account. Keep your password confidential: you are responsible for what happens under your account.',
          'Tell us at once if you suspect unauthorised use. We may suspend accounts that break these terms.',
        ],
      },
      {
        id: 'credits',
        heading: '4. Credit model',
        paragraphs: [
          'Tools are metered in credits. Credits are deducted when a tool runs; a run that fails, or a face blur or face restoration that finds no face, is refunded.',
          'Credits are non-transferable, have no cash value and cannot be exchanged between accounts. Visitors receive a small daily allowance; accounts receive a welcome bonus on email verification and a daily top-up of low balances. Purchasing credits is temporarily paused.',
        ],
      },
      {
        id: 'content',
        heading: '5. Content policy',
        paragraphs: ['You must have the right to process every image you upload. You may not use the service to:'],
        list: [
          'process images that are illegal, or that exploit or endanger minors;',
          'violate anyone’s privacy, intellectual property or publicity rights;',
          'create deceptive content intended to defraud or to impersonate a real person;',
          'upload malware or files crafted to harm the service.',
        ],
      },
      {
        id: 'liability',
        heading: '6. Limitation of liability',
        paragraphs: [
          'The service is provided "as is". AI results can contain mistakes: review them before you publish. A face blur in particular may miss a face, so check anonymised images before sharing them.',
          'To the extent the law allows, we are not liable for indirect or consequential losses, and our total liability is limited to the amount you paid us in the twelve months before the claim.',
        ],
      },
      {
        id: 'contact',
        heading: '7. Contact',
        paragraphs: [`Questions about these terms: write to ${supportEmail} or use the contact page.`],
      },
    ],
  }
}

export function privacyPolicy(supportEmail: string): LegalDocument {
  return {
    title: 'Privacy Policy',
    intro:
      'This policy explains what Facet Studio collects, why, and the choices you have. We collect as little as the service needs to work.',
    sections: [
      {
        id: 'collected',
        heading: '1. Data we collect',
        paragraphs: ['We collect:'],
        list: [
          'Account data: your email address, optional first and last name, and a password hash (never the password itself).',
          'Credit records: your balance and a ledger of credit grants and tool runs (tool, time, credits).',
          'Usage data: pages viewed and tool events, with a random per-tab session identifier, the page path and the referrer.',
          'Messages you send through the contact form or the API waitlist.',
          'Technical data: your IP address for rate limiting and security, and a session cookie.',
        ],
      },
      {
        id: 'use',
        heading: '2. How we use it',
        paragraphs: [
          'To run the tools you ask for, keep your credit balance, secure your account, answer your messages, and understand which parts of the product are used so we can improve them. We do not sell your data and we do not use your images to train models.',
        ],
      },
      {
        id: 'sharing',
        heading: '3. Sharing',
        paragraphs: [
          'We share data only with the providers that host and operate the service (for example the email delivery service), under agreements that protect it, or when the law requires it.',
        ],
      },
      {
        id: 'security',
        heading: '4. Security',
        paragraphs: [
          'Traffic is encrypted in transit with TLS. Session tokens are stored only as hashes. Uploads waiting for their run and results are encrypted at rest with AES-256-GCM. Access to production systems is limited to the people who run them.',
        ],
      },
      {
        id: 'deletion',
        heading: '5. Deletion of uploaded images',
        paragraphs: [
          STORAGE_SENTENCE,
          'An uploaded image is kept, encrypted with AES-256-GCM, only while its run waits or runs, so that any of our processing servers can take it; it is deleted when the run ends, whether it succeeded or failed.',
          `A result can be downloaded again only by the account that made it, and is deleted automatically ${RESULT_KEPT_HOURS} hours after its run.`,
          REPORT_RETENTION_SENTENCE,
        ],
      },
      {
        id: 'rights',
        heading: '6. Your rights',
        paragraphs: ['Depending on where you live, you have the right to:'],
        list: [
          'access the personal data we hold about you;',
          'correct data that is inaccurate;',
          'delete your account and its data;',
          'object to processing based on our legitimate interests;',
          'receive your data in a portable, machine-readable format.',
        ],
      },
      {
        id: 'contact',
        heading: '7. Contact',
        paragraphs: [
          'Signed in, you can exercise two of these rights yourself, from your dashboard or the API: download your data (a zip of your account, credit ledger, runs, teams, API keys and webhooks as JSON, with the results still kept), and delete your account. Deleting it signs you out everywhere, stops your API keys, and erases your results, team memberships, invites, webhooks, name, email address and password. Two records stay: the credit ledger keeps its entries, with nothing that identifies you, for the books; and our security log keeps its records of actions on teams, keys and the account (the deletion among them), with the address the account had.',
          `To exercise these rights or ask a question, write to ${supportEmail}. We reply within one business day.`,
        ],
      },
    ],
  }
}
