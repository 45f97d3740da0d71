// The green box a successful run ends with: a heading, the facts of the run and the download link.
import type { ReactNode } from 'react'

export interface DownloadBoxProps {
  title: string
  href: string
  filename: string
  label?: string
  children?: ReactNode
  /** Extra downloads (the background remover's coloured cutout). */
  actions?: ReactNode
}

export function DownloadBox({ title, href, filename, label, children, actions }: DownloadBoxProps) {
  return (
    <section
      aria-label={title}
      className="rounded-xl border border-emerald-200 bg-emerald-50 p-4 text-sm text-emerald-900"
      data-testid="download-box"
    >
      <h2 className="text-base font-semibold">{title}</h2>
      {children ? <div className="mt-1 space-y-1">{children}</div> : null}
      <div className="mt-3 flex flex-wrap gap-2">
        <a
          href={href}
          download={filename}
          className="inline-flex min-h-11 items-center justify-center rounded-lg bg-emerald-700 px-4 py-2 font-semibold text-white hover:bg-emerald-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-800"
          data-testid="download-link"
        >
          {label ?? `Download ${filename}`}
        </a>
        {actions}
      </div>
    </section>
  )
}
