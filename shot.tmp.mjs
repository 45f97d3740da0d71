import { chromium } from '@playwright/test'
const base = 'http://localhost:3226'
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] })
const [path, width, height, action] = process.argv.slice(2)
const ctx = await browser.newContext({ viewport: { width: +width, height: +height } })
const page = await ctx.newPage()
await page.goto(base + path)
await page.waitForTimeout(500)
if (action === 'file' || action === 'run') {
  await page.getByTestId('file-input').setInputFiles(process.argv[6])
  await page.waitForTimeout(500)
}
if (action === 'run') {
  await page.getByTestId('process-button').click()
  await page.waitForTimeout(+process.argv[7] || 300)
}
await page.screenshot({ path: `/tmp/shots/${process.argv[8] || 'shot'}.png` })
await browser.close()
