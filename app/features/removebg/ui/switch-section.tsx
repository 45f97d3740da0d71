// The /api page's "Switch from remove.bg" part: what changes (the base URL and the key), what is
// honoured as remove.bg documents it, and what answers 400 instead of a silent difference.
import { TOOLS } from '~/catalog/tools'
import { CodeBlock } from '~/ui/code-block'
import { REMOVEBG_PARAMETERS } from '../openapi'

export const SWITCH_SECTION = { id: 'remove-bg', title: 'Switch from remove.bg by changing the base URL' } as const

export function SwitchFromRemoveBg({ origin }: { origin: string }) {
  const curl = `curl --fail-with-body -H "X-Api-Key: $FACET_KEY" \\
  -F image_file=@photo.jpg -F size=auto \\
  -o no-bg.png ${origin}/api/v1.0/removebg`
  return (
    <>
      <p>
        Code written for remove.bg works here unchanged: replace <code>https://api.remove.bg</code> with <code>{origin}/api</code> and send a studio API key (
        <code>fs_live_…</code> or <code>fs_test_…</code>) in <code>X-Api-Key</code>. <code>POST /api/v1.0/removebg</code> takes the same multipart, JSON or form
        body and answers as remove.bg does: the image, or <code>{'{"data": {"result_b64", "foreground_top", …}}'}</code> when you send{' '}
        <code>Accept: application/json</code>; the headers <code>X-Credits-Charged</code>, <code>X-Width</code>, <code>X-Height</code>, <code>X-Type</code>,{' '}
        <code>X-Foreground-Top/Left/Width/Height</code> and <code>X-RateLimit-*</code>; errors as <code>{'{"errors": [{"title", "code"}]}'}</code> with 400, 402, 403,
        413 (a photo past {TOOLS['background-remover'].maxMegabytes} MB, as a file, in base64 or by URL) and 429. It runs through the same queue, charge and refund as <code>/api/remove-bg/</code>.
      </p>
      <CodeBlock label="curl, as for remove.bg">{curl}</CodeBlock>
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">remove.bg parameters and how the studio takes them</caption>
          <thead>
            <tr className="border-b border-slate-200">
              <th scope="col" className="py-2 pr-4 font-semibold text-slate-900">Parameter</th>
              <th scope="col" className="py-2 font-semibold text-slate-900">Here</th>
            </tr>
          </thead>
          <tbody>
            {REMOVEBG_PARAMETERS.map((p) => (
              <tr key={p.name} className="border-b border-slate-100 align-top">
                <td className="py-2 pr-4">
                  <code>{p.name}</code>
                </td>
                <td className="py-2">{p.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p>
        <strong>Not supported</strong> (answered with a 400 that says so): foreground types other than <code>auto</code>, a region of interest, <code>shadow_type</code> and{' '}
        <code>shadow_opacity</code>, colours with transparency or by name other than white and black, <code>crop</code> together with <code>scale</code> or{' '}
        <code>position</code>. Credits are the studio&apos;s: a run costs the remover&apos;s price at any size (no quarter-credit previews). <code>GET /v1.0/account</code>{' '}
        and <code>POST /v1.0/improve</code> do not exist here.
      </p>
    </>
  )
}
