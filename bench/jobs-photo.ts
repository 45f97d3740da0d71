import sharp from 'sharp'

/** The benchmark photo: a product shot resized to about 1 MP (1155 × 866), as JPEG. */
export function onePhoto(): Promise<Buffer> {
  return sharp('tests/fixtures/photos/product-gameboy-white-bg.jpg').resize({ width: 1155, height: 866, fit: 'fill' }).jpeg().toBuffer()
}
