import type { ReactNode } from 'react'
import type { Viewer } from '~/features/viewer'

export function SiteLayout({ children }: { viewer: Viewer; children: ReactNode }) {
  return <main>{children}</main>
}
