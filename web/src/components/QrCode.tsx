// The otpauth URL as a QR code drawn on a canvas (no image URL, so the CSP needs no data: source).
import QRCode from 'qrcode';
import { useEffect, useRef } from 'react';

export function QrCode({ text, label }: { text: string; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (canvas.current) void QRCode.toCanvas(canvas.current, text, { width: 192, margin: 1 });
  }, [text]);
  return <canvas ref={canvas} role="img" aria-label={label} />;
}
