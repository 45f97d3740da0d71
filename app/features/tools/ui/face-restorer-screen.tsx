// The face restorer: upload, the engine in use, before/after and the restored portrait's download.
import { useState } from 'react'
import { TOOLS } from '~/features/tools/catalog'
import type { Viewer } from '~/features/viewer'
import { trackEvent } from '~/features/analytics/track'
import { CompareSlider } from '~/ui/compare-slider'
import { DownloadBox } from './download-box'
import { ErrorBox } from './error-box'
import { shownStatus, type ToolPageResult } from './page-result'
import { ProgressPanel } from './progress-panel'
import { readJson } from './send-tool-request'
import { StatusBadge } from './status-badge'
import { ToolForm } from './tool-form'
import { ToolHero } from './tool-hero'
import { CreditsLine, EmptyPreview, ProcessButton, ToolLayout } from './tool-layout'
import { MISSING_RESTORED_URL } from './tool-messages'
import { UploadCard } from './upload-card'
import { ToolRunError, useToolRun } from './use-tool-run'
import { UploadPreview } from './upload-preview'

const tool = TOOLS['face-restorer']

export const GFPGAN_ENGINE_LABEL = 'GFPGAN v1.4 · signature detail'
export const FALLBACK_ENGINE_LABEL = 'Fallback detail mode'
export const BACKEND_UNAVAILABLE_NOTE =
  'The restoration backend is unavailable, so results may be limited: faces are sharpened by the general detail model instead.'

interface Restored {
  url: string
  gfpganAvailable: boolean
}

/** Reads the restorer's JSON answer; restored_url must be a string. */
export function readRestored(body: unknown): Restored {
  const value = body && typeof body === 'object' ? (body as { restored_url?: unknown; gfpgan_available?: unknown }) : {}
  if (typeof value.restored_url !== 'string' || value.restored_url.length === 0) throw new ToolRunError(MISSING_RESTORED_URL)
  return { url: value.restored_url, gfpganAvailable: value.gfpgan_available === true }
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
  const busy = run.status === 'processing'
  const shownPage = run.status === 'idle' && !run.error ? pageResult : undefined
  const pageOk = shownPage?.ok ? shownPage : undefined
  const balance = run.remaining ?? (shownPage ? shownPage.remaining : null) ?? viewer?.credits?.balance

  const controls = (
    <ToolForm
      label="Restore portrait"
      onRun={(form) => {
        if (run.file) form.set(tool.fileField, run.file)
        trackEvent('face_restore_requested', {})
        void run.run(form)
      }}
    >
      <UploadCard tool={tool} file={run.file} onFile={run.selectFile} disabled={busy} aside={<StatusBadge tool={tool.slug} status={shownStatus(run.status, shownPage)} />} />
      <div className="rounded-xl border border-slate-200 p-3 text-sm" data-testid="engine">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Engine</p>
        <p className="mt-1 font-semibold text-slate-900" data-testid="engine-label">
          {gfpgan ? GFPGAN_ENGINE_LABEL : FALLBACK_ENGINE_LABEL}
        </p>
        {gfpgan ? null : (
          <p className="mt-1 text-slate-600" data-testid="engine-note">
            {BACKEND_UNAVAILABLE_NOTE}
          </p>
        )}
      </div>
      <ProcessButton disabled={!run.file || busy} busy={busy} label="Restore portrait" busyLabel="Restoring portrait…" />
      <CreditsLine balance={balance} />
      <ProgressPanel progress={run.progress} failed={run.status === 'error'} />
      <ErrorBox message={run.error ?? (shownPage && !shownPage.ok ? shownPage.error : null)} />
    </ToolForm>
  )

  let preview
  if (run.result && run.fileUrl) {
    preview = (
      <>
        <CompareSlider
          before={{ src: run.fileUrl, alt: 'Original portrait', label: 'Original' }}
          after={{ src: run.result.url, alt: 'Restored portrait', label: 'Restored' }}
        />
        <DownloadBox title="Portrait ready" href={run.result.url} filename={tool.downloadName}>
          <p>Restored at the original resolution{balance !== null && balance !== undefined ? ` · Credits remaining: ${balance}` : ''}</p>
        </DownloadBox>
      </>
    )
  } else if (run.fileUrl) {
    preview = (
      <UploadPreview src={run.fileUrl} alt="Original portrait" />
    )
  } else if (pageOk) {
    preview = (
      <>
        <div className="overflow-hidden rounded-xl bg-slate-100">
          <img src={pageOk.resultUrl} alt="Restored portrait" className="mx-auto max-h-[28rem] w-full object-contain" data-testid="result-image" />
        </div>
        <DownloadBox title="Portrait ready" href={pageOk.downloadUrl} filename={pageOk.filename}>
          <p>Credits remaining: {pageOk.remaining}</p>
        </DownloadBox>
      </>
    )
  } else {
    preview = <EmptyPreview>Upload a portrait to compare it with the restored version.</EmptyPreview>
  }

  return <ToolLayout hero={<ToolHero tool={tool} cost={cost} />} controls={controls} preview={preview} />
}
