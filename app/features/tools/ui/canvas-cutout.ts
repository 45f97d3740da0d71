// The background remover's coloured download, drawn in the browser from the transparent result the
// server already returned: changing the colour never needs a second request or a second credit.

export async function renderColouredCutout(src: string, colour: string): Promise<Blob> {
  const image = new Image()
  image.src = src
  await image.decode()
  const canvas = document.createElement('canvas')
  canvas.width = image.naturalWidth
  canvas.height = image.naturalHeight
  const context = canvas.getContext('2d')
  if (!context) throw new Error('Canvas 2D is not available.')
  context.fillStyle = colour
  context.fillRect(0, 0, canvas.width, canvas.height)
  context.drawImage(image, 0, 0)
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('Canvas export failed.'))), 'image/png'),
  )
}

/** Saves a blob under a name, as a click on a download link would. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  link.rel = 'noopener'
  document.body.append(link)
  link.click()
  link.remove()
  window.setTimeout(() => URL.revokeObjectURL(url), 30_000)
}

/** A checkerboard behind transparent pixels, so "transparent" is visible. */
export const CHECKERBOARD_STYLE = {
  backgroundColor: '#ffffff',
  backgroundImage: 'conic-gradient(#e2e8f0 25%, transparent 0 50%, #e2e8f0 0 75%, transparent 0)',
  backgroundSize: '20px 20px',
} as const
