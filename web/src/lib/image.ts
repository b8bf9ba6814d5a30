/**
 * An attached image as a JPEG `data:` URL at most `max` px on its longer side: phone photos are
 * large and a request to `tandem serve` may carry 1 MiB. Decoding and scaling happen in the
 * browser (createImageBitmap + canvas); nothing leaves the page but the result.
 */
export async function imageDataUrl(file: File, max = 1280): Promise<string> {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, max / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext("2d")?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return canvas.toDataURL("image/jpeg", 0.8);
}
