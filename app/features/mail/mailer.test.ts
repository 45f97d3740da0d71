// Mail without SMTP (the outbox folder), with SMTP (a minimal SMTP listener), and the operator note.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { verificationMail } from '~/features/auth/emails.server'
import { notifyOperator, sendMail, sendMailInBackground, waitForPendingMail } from './mailer.server'

const saved = { ...process.env }
let dataDir: string

beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'facet-mail-'))
  process.env.DATA_DIR = dataDir
  delete process.env.SMTP_URL
  delete process.env.OPERATOR_EMAIL
  resetConfigForTests()
})

afterEach(() => {
  process.env = { ...saved }
  resetConfigForTests()
})

function outbox() {
  const dir = path.join(dataDir, 'mail')
  return readdirSync(dir).map((name) => ({ name, mail: JSON.parse(readFileSync(path.join(dir, name), 'utf8')) }))
}

/** Just enough SMTP to accept messages; returns what it received. */
async function fakeSmtp() {
  const received: string[] = []
  const server = createServer((socket: Socket) => {
    let data = false
    let buffer = ''
    socket.write('220 fake ESMTP\r\n')
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8')
      if (data) {
        const end = buffer.indexOf('\r\n.\r\n')
        if (end === -1) return
        received.push(buffer.slice(0, end))
        buffer = buffer.slice(end + 5)
        data = false
        socket.write('250 OK queued\r\n')
      }
      let newline
      while (!data && (newline = buffer.indexOf('\r\n')) !== -1) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 2)
        const verb = line.slice(0, 4).toUpperCase()
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 fake\r\n')
        else if (verb === 'DATA') {
          data = true
          socket.write('354 go ahead\r\n')
        } else if (verb === 'QUIT') socket.end('221 bye\r\n')
        else socket.write('250 OK\r\n')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return { received, url: `smtp://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) }
}

describe('sendMail', () => {
  it('writes each mail to <DATA_DIR>/mail/ with its text, HTML and link when SMTP_URL is unset', async () => {
    const message = verificationMail('Someone@Example.test', '<b>Eve</b>', 'http://localhost:3000/verify-email?token=abc', 24)
    await sendMail(message)
    const [{ name, mail }] = outbox()
    expect(name).toMatch(/^\d{4}-\d{2}-\d{2}T.*-someone@example\.test\.json$/)
    expect(mail).toMatchObject({ to: 'Someone@Example.test', subject: 'Confirm your email for Facet Studio', link: message.link })
    expect(mail.text).toContain('http://localhost:3000/verify-email?token=abc')
    expect(mail.html).toContain('href="http://localhost:3000/verify-email?token=abc"')
    // Names are escaped in the HTML part.
    expect(mail.html).toContain('&lt;b&gt;Eve&lt;/b&gt;')
    expect(mail.html).not.toContain('<b>Eve</b>')
  })

  it('delivers through SMTP_URL with text and HTML parts', async () => {
    const smtp = await fakeSmtp()
    try {
      process.env.SMTP_URL = smtp.url
      resetConfigForTests()
      await sendMail(verificationMail('real@example.test', 'Ada', 'http://localhost:3000/verify-email?token=xyz', 24))
      expect(smtp.received).toHaveLength(1)
      const raw = smtp.received[0]
      expect(raw).toMatch(/^To: real@example\.test/m)
      expect(raw).toMatch(/^Subject: Confirm your email for Facet Studio/m)
      expect(raw).toContain('multipart/alternative')
      expect(raw).toContain('text/plain')
      expect(raw).toContain('text/html')
      expect(() => readdirSync(path.join(dataDir, 'mail'))).toThrow()
    } finally {
      await smtp.close()
    }
  })

  it('sends in the background and lets callers wait for it', async () => {
    sendMailInBackground({ to: 'later@example.test', subject: 'Later', text: 'x', html: '<p>x</p>' })
    await waitForPendingMail()
    expect(outbox().map((o) => o.mail.subject)).toEqual(['Later'])
  })
})

describe('notifyOperator', () => {
  it('does nothing without OPERATOR_EMAIL', async () => {
    expect(await notifyOperator('New contact message', 'hello')).toBe(false)
  })

  it('mails OPERATOR_EMAIL when it is set', async () => {
    process.env.OPERATOR_EMAIL = 'ops@example.test'
    resetConfigForTests()
    expect(await notifyOperator('New contact message', 'Line 1\n<Line 2>')).toBe(true)
    const [{ mail }] = outbox()
    expect(mail.to).toBe('ops@example.test')
    expect(mail.text).toBe('Line 1\n<Line 2>')
    expect(mail.html).toContain('&lt;Line 2&gt;')
  })
})
