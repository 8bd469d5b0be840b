import decode from "heic-decode"

/**
 * HEIC/HEIF through libheif compiled to WebAssembly (heic-decode): prebuilt sharp's libheif
 * has no HEVC decoder, so phone photos are read here. `heicSize` reads only the container
 * (no pixels decoded); `decodeHeic` decodes the primary image to RGBA, its rotation and
 * mirroring (irot/imir) already applied by libheif.
 */
export const heicSize = async (buffer: Uint8Array): Promise<{ width: number; height: number; images: number }> => {
  const images = await decode.all({ buffer })
  try {
    const first = images[0]
    if (first === undefined) throw new Error("no image in the HEIF container")
    return { width: first.width, height: first.height, images: images.length }
  } finally {
    images.dispose()
  }
}

export const decodeHeic = (buffer: Uint8Array): Promise<{ width: number; height: number; data: Uint8ClampedArray }> => decode({ buffer })
