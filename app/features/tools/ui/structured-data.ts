// The tools' structured data (spec §1: advertised as free, price 0 USD), rendered by each route's
// meta as a JSON-LD data block. Data blocks are never executed, so the CSP does not apply to them.
import type { MetaDescriptor } from '@remix-run/node'
import type { ToolDefinition } from '~/catalog/tools'

export function toolStructuredData(tool: ToolDefinition, publicUrl: string) {
  const url = new URL(tool.path, publicUrl).toString()
  return {
    '@context': 'https://schema.org',
    '@type': 'WebApplication',
    name: `${tool.name} · Facet Studio`,
    description: tool.description,
    url,
    applicationCategory: 'MultimediaApplication',
    operatingSystem: 'Any (web browser)',
    isAccessibleForFree: true,
    offers: { '@type': 'Offer', price: '0', priceCurrency: 'USD' },
  }
}

export function toolMeta(tool: ToolDefinition, publicUrl: string | undefined): MetaDescriptor[] {
  const title = `${tool.name} · Facet Studio`
  return [
    { title },
    { name: 'description', content: tool.description },
    { property: 'og:title', content: title },
    { property: 'og:description', content: tool.description },
    ...(publicUrl ? [{ 'script:ld+json': toolStructuredData(tool, publicUrl) }] : []),
  ]
}
