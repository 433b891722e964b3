import { readFile } from 'node:fs/promises';
import PDFDocument from 'pdfkit';
import type { InvoiceDocument } from './document';

/**
 * DejaVu Sans, embedded (subset) in every PDF: the 14 standard PDF fonts cover only Windows-1252, and a customer
 * or a line may be named in any script. Read once per process.
 */
let fonts: Promise<{ regular: Buffer; bold: Buffer }> | undefined;
function loadFonts() {
  fonts ??= Promise.all([
    readFile(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    readFile(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  ]).then(([regular, bold]) => ({ regular, bold }));
  return fonts;
}

const MARGIN = 50;
const MUTED = '#52525b';
/** Table columns on an A4 page (595 pt wide): description, quantity, unit price, amount. */
const COLUMNS = { description: { x: MARGIN, width: 245 }, quantity: { x: 300, width: 45 }, unit: { x: 350, width: 95 }, amount: { x: 450, width: 95 } };

/** The invoice as a one-or-more-page A4 PDF (pdfkit), text selectable and searchable. */
export async function renderInvoicePdf(document: InvoiceDocument): Promise<Buffer> {
  const { regular, bold } = await loadFonts();
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: `Invoice ${document.number}`, Author: document.merchantName, Subject: `Invoice ${document.number}` },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  const right = doc.page.width - MARGIN;
  const width = right - MARGIN;
  const bottom = () => doc.page.height - MARGIN;

  doc.font('bold').fontSize(18).text(document.merchantName, MARGIN, MARGIN, { width: width - 160 });
  doc.font('bold').fontSize(18).text('INVOICE', right - 160, MARGIN, { width: 160, align: 'right' });
  doc.font('regular').fontSize(10).fillColor(MUTED).text(`${document.number} · ${document.statusLabel}`, right - 200, doc.y, { width: 200, align: 'right' });
  if (document.testMode) doc.fillColor('#9a3412').text('TEST MODE', right - 200, doc.y, { width: 200, align: 'right' });
  doc.fillColor('black');

  let y = Math.max(doc.y, MARGIN + 50) + 20;
  doc.font('bold').fontSize(10).text('Bill to', MARGIN, y);
  doc.font('regular');
  if (document.customer?.name) doc.text(document.customer.name, { width: 250 });
  if (document.customer?.email) doc.text(document.customer.email, { width: 250 });
  if (!document.customer) doc.text('—');
  const leftEnd = doc.y;
  doc.y = y;
  for (const { label, value } of document.dates) {
    const rowY = doc.y;
    doc.font('bold').text(label, right - 220, rowY, { width: 80 });
    doc.font('regular').text(value, right - 140, rowY, { width: 140, align: 'right' });
  }
  y = Math.max(leftEnd, doc.y) + 24;

  const header = (at: number) => {
    doc.font('bold').fontSize(10);
    doc.text('Description', COLUMNS.description.x, at, { width: COLUMNS.description.width });
    doc.text('Qty', COLUMNS.quantity.x, at, { width: COLUMNS.quantity.width, align: 'right' });
    doc.text('Unit price', COLUMNS.unit.x, at, { width: COLUMNS.unit.width, align: 'right' });
    doc.text('Amount', COLUMNS.amount.x, at, { width: COLUMNS.amount.width, align: 'right' });
    const lineY = at + 15;
    doc.moveTo(MARGIN, lineY).lineTo(right, lineY).strokeColor('#d4d4d8').stroke();
    doc.font('regular');
    return lineY + 6;
  };
  y = header(y);
  for (const line of document.lines) {
    const height = Math.max(doc.heightOfString(line.description, { width: COLUMNS.description.width }), 12);
    if (y + height > bottom()) {
      doc.addPage();
      y = header(MARGIN);
    }
    doc.text(line.description, COLUMNS.description.x, y, { width: COLUMNS.description.width });
    doc.text(String(line.quantity), COLUMNS.quantity.x, y, { width: COLUMNS.quantity.width, align: 'right' });
    doc.text(line.unitAmount, COLUMNS.unit.x, y, { width: COLUMNS.unit.width, align: 'right' });
    doc.text(line.amount, COLUMNS.amount.x, y, { width: COLUMNS.amount.width, align: 'right' });
    y += height + 6;
  }

  if (y + 80 > bottom()) {
    doc.addPage();
    y = MARGIN;
  }
  doc.moveTo(COLUMNS.unit.x - 60, y).lineTo(right, y).strokeColor('#d4d4d8').stroke();
  y += 8;
  const total = (label: string, value: string, font: 'regular' | 'bold') => {
    doc.font(font).text(label, COLUMNS.unit.x - 60, y, { width: 155 });
    doc.text(value, COLUMNS.amount.x, y, { width: COLUMNS.amount.width, align: 'right' });
    y += 16;
  };
  total('Subtotal', document.subtotal, 'regular');
  total('Tax', document.tax, 'regular');
  total(`Total (${document.currency})`, document.total, 'bold');

  doc.font('regular').fillColor(MUTED);
  doc.y = y + 16;
  if (document.memo) doc.text(document.memo, MARGIN, doc.y, { width });
  if (document.payUrl) {
    doc.moveDown();
    doc.fillColor('black').text('Pay online: ', MARGIN, doc.y, { continued: true }).fillColor('#1d4ed8').text(document.payUrl, { link: document.payUrl, underline: true });
  }
  doc.end();
  return done;
}
