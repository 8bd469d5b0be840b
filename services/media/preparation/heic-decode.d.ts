/** heic-decode ships no types; the part of its API used here (libheif compiled to WebAssembly). */
declare module "heic-decode" {
  interface DecodedImage {
    readonly width: number
    readonly height: number
    /** RGBA, 4 bytes a pixel. */
    readonly data: Uint8ClampedArray
  }
  interface ImageHandle {
    readonly width: number
    readonly height: number
    /** Decodes the pixels (only then is the HEVC bitstream read). */
    decode(): Promise<DecodedImage>
  }
  interface HeicDecode {
    (input: { buffer: Uint8Array }): Promise<DecodedImage>
    /** Every image's handle without decoding any: dimensions from the container alone. */
    all(input: { buffer: Uint8Array }): Promise<ReadonlyArray<ImageHandle> & { dispose(): void }>
  }
  const decode: HeicDecode
  export default decode
}
