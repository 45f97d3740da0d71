// A browser run's result as the screens show it (decision 179): from the stored result's address when
// the job gave one (its small preview in the before/after, the full file on demand and for the download),
// else from the answer's body (an object URL, released when the result is replaced).
import { resultAddresses, type ResultAddresses } from './page-result'
import type { ToolHttpResponse } from './send-tool-request'

export function shownResult(response: ToolHttpResponse, resultUrl: string | null): ResultAddresses {
  if (resultUrl) return resultAddresses(resultUrl)
  const url = URL.createObjectURL(response.body)
  return { preview: url, full: url, download: url }
}

export function releaseShownResult(at: ResultAddresses): void {
  if (at.full.startsWith('blob:')) URL.revokeObjectURL(at.full)
}
