// The downscale offered for an image too large to finish in time (run-time.ts): drawn smaller in the
// browser and chosen again, in its own type where the browser can write it (JPEG, PNG, WebP), else PNG.
const WRITABLE = ['image/jpeg', 'image/png', 'image/webp']

/** 'photo.jpg' → 'photo-1200x900.jpg': the name says it is the smaller copy. */
export function downscaledName(name: string, width: number, height: number, type: string): string {
  const dot = name.lastIndexOf('.')
  const base = dot > 0 ? name.slice(0, dot) : name || 'image'
  const extension = type === 'image/jpeg' ? 'jpg' : type.slice('image/'.length)
  return `${base}-${width}x${height}.${extension}`
}

export async function downscaleFile(file: File, width: number, height: number): Promise<File> {
  const bitmap = await createImageBitmap(file, { resizeWidth: width, resizeHeight: height, resizeQuality: 'high' })
  try {
    const canvas = document.createElement('canvas')
    canvas.width = width
    canvas.height = height
    const context = canvas.getContext('2d')
    if (!context) throw new Error('no 2d context')
    context.drawImage(bitmap, 0, 0)
    const type = WRITABLE.includes(file.type) ? file.type : 'image/png'
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, 0.92))
    if (!blob) throw new Error('the canvas gave no image')
    return new File([blob], downscaledName(file.name, width, height, type), { type, lastModified: Date.now() })
  } finally {
    bitmap.close()
  }
}
