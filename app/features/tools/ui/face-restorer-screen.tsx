// The face restorer: upload, the engine in use, before/after and the restored portrait's download.
import { useState } from 'react'
import { TOOLS } from '~/catalog/tools'
import type { Viewer } from '~/features/account/viewer'
import { trackEvent } from '~/features/analytics/track'
import { DownloadBox } from './download-box'
import { resultAddresses, type ResultAddresses, type ToolPageResult } from './page-result'
import { readJson } from './send-tool-request'
import { MISSING_RESTORED_URL } from './tool-messages'
import { ToolRunError, useToolRun } from './use-tool-run'
import { useWorkspace } from './use-workspace'
import { StageCompare, StageResultImage, ToolWorkspace } from './workspace'
import { browserCanShow } from './file-checks'
import { FormatOptions } from './tool-options'

const tool = TOOLS['face-restorer']
const DONE_TITLE = 'Portrait ready'

export const GFPGAN_ENGINE_LABEL = 'GFPGAN v1.4 · signature detail'
/** The restorer without GFPGAN, named for the people using it (issue 21); operators read 'Fallback detail mode' in /healthz and the API's note. */
export const FALLBACK_ENGINE_LABEL = 'Standard detail'
export const BACKEND_UNAVAILABLE_NOTE =
  'Faces are sharpened by our general detail model: natural and clean, with less fine detail than a dedicated face model.'

interface Restored {
  /** Where it shows (its preview), opens in full and downloads: from the answer's restored_url. */
  at: ResultAddresses
  gfpganAvailable: boolean
  /** The stored result's name (its extension follows the file type); the catalog's name when absent. */
  filename: string
}

/** Reads the restorer's JSON answer; restored_url must be a string. */
export function readRestored(body: unknown): Restored {
  const value = body && typeof body === 'object' ? (body as { restored_url?: unknown; gfpgan_available?: unknown; filename?: unknown }) : {}
  if (typeof value.restored_url !== 'string' || value.restored_url.length === 0) throw new ToolRunError(MISSING_RESTORED_URL)
  const filename = typeof value.filename === 'string' && value.filename.length > 0 ? value.filename : tool.downloadName
  return { at: resultAddresses(value.restored_url), gfpganAvailable: value.gfpgan_available === true, filename }
}

export function FaceRestorerScreen({
  cost,
  viewer,
  pageResult,
  gfpganInstalled,
}: {
  cost: number
  viewer: Viewer | undefined
  pageResult?: ToolPageResult
  gfpganInstalled: boolean
}) {
  const [gfpgan, setGfpgan] = useState(pageResult?.gfpganAvailable ?? gfpganInstalled)
  const run = useToolRun<Restored>(tool, {
    interpret: async (response) => readRestored(await readJson(response)),
    onSuccess: (result) => {
      setGfpgan(result.gfpganAvailable)
      trackEvent('face_restore_processed', { gfpgan_available: result.gfpganAvailable })
    },
    onFailure: (message, body) => {
      const reported = body && typeof body === 'object' ? (body as { gfpgan_available?: unknown }).gfpgan_available : undefined
      if (typeof reported === 'boolean') setGfpgan(reported)
      trackEvent('face_restore_failed', { error: message })
    },
  })
  const ws = useWorkspace(tool, run)
  const pageOk = pageResult?.ok ? pageResult : undefined

  const engine = (
    <div className="rounded-xl border border-slate-200 p-3 text-sm" data-testid="engine">
      <p className="text-xs font-medium text-slate-600">Engine</p>
      <p className="mt-1 font-semibold text-slate-900" data-testid="engine-label">
        {gfpgan ? GFPGAN_ENGINE_LABEL : FALLBACK_ENGINE_LABEL}
      </p>
      {gfpgan ? null : (
        <p className="mt-1 text-slate-600" data-testid="engine-note">
          {BACKEND_UNAVAILABLE_NOTE}
        </p>
      )}
    </div>
  )

  const resultView =
    run.result && run.file && run.fileUrl ? (
      <>
        <StageCompare
          size={ws.size}
          before={browserCanShow(run.file.type) ? { src: run.fileUrl, alt: 'Original portrait', label: 'Original' } : null}
          after={{ src: run.result.at.preview, alt: 'Restored portrait', label: 'Restored' }}
          fullSize={run.result.at.full}
        />
        <DownloadBox title={DONE_TITLE} href={run.result.at.download} filename={run.result.filename}>
          <p>Restored with {run.result.gfpganAvailable ? GFPGAN_ENGINE_LABEL : FALLBACK_ENGINE_LABEL}.</p>
        </DownloadBox>
      </>
    ) : null

  const pageResultView = pageOk ? (
    <>
      <StageResultImage at={resultAddresses(pageOk.resultUrl)} alt="Restored portrait" />
      <DownloadBox title={DONE_TITLE} href={pageOk.downloadUrl} filename={pageOk.filename} />
    </>
  ) : null

  return (
    <ToolWorkspace
      tool={tool}
      cost={cost}
      viewer={viewer}
      run={run}
      ws={ws}
      pageResult={pageResult}
      formLabel="Restore portrait"
      processLabel="Restore portrait"
      busyLabel="Restoring portrait…"
      doneTitle={DONE_TITLE}
      onRun={(form) => {
        trackEvent('face_restore_requested', {})
        void run.run(form)
      }}
      options={
        <>
          {engine}
          <FormatOptions chosen={pageResult?.fieldValues?.format} />
        </>
      }
      resultView={resultView}
      pageResultView={pageResultView}
    />
  )
}
