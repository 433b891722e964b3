import bwipjs from 'bwip-js';
import PDFDocument from 'pdfkit';
import type { LabelInput, Place } from './types';

/** A 4 × 6 inch thermal label, in PDF points. */
const WIDTH = 288;
const HEIGHT = 432;
const MARGIN = 14;

/** The waybill as a Code 128 barcode (PNG), the symbology couriers' scanners read. */
export function waybillBarcode(waybillId: string): Promise<Buffer> {
  return bwipjs.toBuffer({ bcid: 'code128', text: waybillId, scale: 3, height: 14, includetext: false, paddingwidth: 10, paddingheight: 4 });
}

function lines(place: Place | null): string[] {
  if (!place) return ['(no ship-from origin set)'];
  const locality = [place.village, place.district, place.city].filter(Boolean).join(', ');
  const region = [place.province, place.postal].filter(Boolean).join(' ');
  return [place.contactName, place.contactPhone, place.address, locality, region, place.areaId ? `Area ${place.areaId}` : undefined].filter(
    (line): line is string => typeof line === 'string' && line.length > 0,
  );
}

/**
 * Renders the shipping label: courier and service, the waybill as a barcode and as text, sender and recipient,
 * the parcel's contents and weight, and our shipment and order references. Fonts are PDFKit's built-in
 * Helvetica (WinAnsi), so characters beyond it are printed as `?` rather than failing the label.
 */
export async function renderLabel(input: LabelInput): Promise<Buffer> {
  const barcode = await waybillBarcode(input.waybillId);
  const doc = new PDFDocument({
    size: [WIDTH, HEIGHT],
    margin: MARGIN,
    info: { Title: `Shipping label ${input.waybillId}`, Subject: input.shipmentId, CreationDate: input.createdAt, ModDate: input.createdAt },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const inner = WIDTH - 2 * MARGIN;
  // WinAnsi cannot encode everything a name may hold; an unencodable character would break the text run.
  const safe = (text: string) => text.replace(/[^\u0020-\u007E\u00A0-\u00FF]/g, '?');

  doc.font('Helvetica-Bold').fontSize(14).text(safe(`${input.courierName} - ${input.serviceName}`), { width: inner });
  doc.moveDown(0.4);
  doc.image(barcode, MARGIN, doc.y, { fit: [inner, 70], align: 'center' });
  doc.y += 74;
  doc.font('Helvetica-Bold').fontSize(13).text(`Waybill ${input.waybillId}`, { width: inner, align: 'center' });
  doc.moveDown(0.6);

  const block = (title: string, body: string[]) => {
    doc.font('Helvetica-Bold').fontSize(9).text(title, { width: inner });
    doc.font('Helvetica').fontSize(9).text(safe(body.join('\n')), { width: inner });
    doc.moveDown(0.5);
  };
  block('TO', lines(input.destination));
  block('FROM', lines(input.origin));
  const grams = input.items.reduce((sum, item) => sum + item.weight * item.quantity, 0);
  block(
    'CONTENTS',
    input.items.map((item) => `${item.quantity} x ${item.name}`).concat(`Total weight ${grams} g`),
  );
  doc.font('Helvetica').fontSize(7).text(safe(`Shipment ${input.shipmentId}  Ref ${input.reference}`), MARGIN, HEIGHT - MARGIN - 10, { width: inner, lineBreak: false });
  doc.end();
  return done;
}
