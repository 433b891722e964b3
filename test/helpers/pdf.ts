import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** A poppler tool; its absence says how to install it rather than failing with a bare ENOENT. */
async function run(tool: string, args: string[]): Promise<{ stdout: string }> {
  try {
    return await exec(tool, args);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`${tool} is missing: the label tests need Debian's poppler-utils. Run \`npm install\` as root (scripts/provision.sh installs it) or \`apt-get update && apt-get install -y poppler-utils\`.`);
    }
    throw err;
  }
}

/** poppler-utils (pdftotext, pdftoppm): scripts/provision.sh installs Debian's package. */
async function withPdf<T>(pdf: Buffer, fn: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pdf-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    await writeFile(file, pdf);
    return await fn(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The document's text as pdftotext reads it back (layout kept). */
export function pdfText(pdf: Buffer): Promise<string> {
  return withPdf(pdf, async (file) => (await run('pdftotext', ['-layout', file, '-'])).stdout);
}

export async function pdfPageCount(pdf: Buffer): Promise<number> {
  return withPdf(pdf, async (file) => Number(/Pages:\s+(\d+)/.exec((await run('pdfinfo', [file])).stdout)?.[1]));
}

/**
 * The first page rendered by pdftoppm (greyscale, 300 dpi) and read as a barcode: the row pattern most rows
 * share, as alternating bar/space widths in modules (the narrowest run is one module), from
 * its first bar to its last. Compare with bwip-js's `raw(...).sbs` of the text it should encode.
 */
export function barcodeModules(pdf: Buffer): Promise<number[]> {
  return withPdf(pdf, async (file, dir) => {
    await run('pdftoppm', ['-gray', '-r', '300', '-f', '1', '-l', '1', '-singlefile', file, path.join(dir, 'page')]);
    const pgm = await readFile(path.join(dir, 'page.pgm'));
    // P5 header: magic, width, height, maxval, each followed by whitespace.
    const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 50).toString('latin1'))!;
    const [width, height] = [Number(header[1]), Number(header[2])];
    const pixels = pgm.subarray(header[0].length);
    // Bars are vertical: the barcode is the run pattern shared by the most rows (a line of text varies row to row).
    const seen = new Map<string, number>();
    for (let y = 0; y < height; y += 1) {
      const runs: number[] = [];
      let dark = false;
      let length = 0;
      for (let x = 0; x < width; x += 1) {
        const isDark = pixels[y * width + x]! < 128;
        if (runs.length === 0 && length === 0 && !isDark) continue;
        if (isDark === dark || (runs.length === 0 && length === 0)) {
          dark = isDark;
          length += 1;
        } else {
          runs.push(length);
          dark = isDark;
          length = 1;
        }
      }
      if (dark && length > 0) runs.push(length);
      if (runs.length >= 20) seen.set(JSON.stringify(runs), (seen.get(JSON.stringify(runs)) ?? 0) + 1);
    }
    const best = JSON.parse([...seen.entries()].sort((a, b) => b[1] - a[1])[0]![0]) as number[];
    const narrowest = Math.min(...best);
    // Anti-aliasing makes runs a pixel wider or narrower: the module is the total over the whole-module count.
    const total = best.reduce((a, b) => a + b, 0);
    const modules = Math.round(total / narrowest);
    const unit = total / modules;
    return best.map((r) => Math.round(r / unit));
  });
}
