import type { Request, Response } from 'express';
import { CURRENCIES, PRODUCT_TYPES } from '../../../db/models/product';
import { CreateProductBody, MAX_FILE_SIZE, UpdateProductBody, type ProductDto } from '../../../domain/products';
import { AppError, notFound } from '../../../lib/errors';
import { CURRENCY_EXPONENTS, toSmallestUnit } from '../../../lib/money';
import { MAX_UPLOAD_DURATION_MS } from '../../../lib/storage';
import { extendDeadline } from '../../middleware/deadline';
import { engine } from '../../pages/shared/render';
import { BODIES } from '../render';
import { assertCsrfToken, identityOf, requireIdentity } from '../session';
import { fieldErrorsByPath, textField, wholeNumber, type FormPageKit } from './forms';
import { PRODUCT_EDIT, PRODUCT_NEW } from './products-templates';

const PAGES = { create: engine.compile(PRODUCT_NEW), edit: engine.compile(PRODUCT_EDIT) };

const BYTES = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
/** A size as people read it: `1.5 MB`, `820 bytes` (decimal units, as the limit is written: 500 MB). */
function bytesText(size: number): string {
  const [value, unit] = size >= 1e9 ? [size / 1e9, 'GB'] : size >= 1e6 ? [size / 1e6, 'MB'] : size >= 1e3 ? [size / 1e3, 'kB'] : [size, 'bytes'];
  return `${BYTES.format(value)} ${unit}`;
}
engine.registerHelper('bytes', bytesText);

/**
 * Product prices are whole units (document 1); the `money` helper takes the smallest unit. A price too large for
 * an exact smallest unit is shown to the nearest unit rather than failing the page.
 */
function priceMinor(product: Pick<ProductDto, 'price' | 'currency'>): number {
  try {
    return toSmallestUnit(product.price, product.currency);
  } catch {
    return product.price * 10 ** CURRENCY_EXPONENTS[product.currency];
  }
}

type FormValues = Record<string, string | boolean>;

/**
 * Products (document 1, Products and States): the list with archive and **restore** (dashboard only), create, edit
 * and a file's upload. Each action is the products service's call that the API route makes: `products.create`,
 * `products.update`, `productFiles.upload` (the same streaming parser, storage and limits as
 * `POST /v1/storefront/products/:id/files`), `products.archive`, `products.restore`.
 */
export function mountProductPages({ router, services, config, page, post, sameOrigin }: FormPageKit): void {
  const { products, productFiles } = services;

  router.get('/products', async (req, res) => {
    const { auth } = identityOf(req);
    const archivedTab = req.query.archived === '1';
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : undefined;
    const list = await products.list(auth, { limit: 50, cursor, archivedOnly: archivedTab });
    const rows = list.data.map((p) => ({ ...p, priceMinor: priceMinor(p) }));
    page(req, res, { status: 200, title: 'Products', active: 'products', body: BODIES.products, context: { products: rows, archivedTab, nextCursor: list.nextCursor } });
  });

  const newPage = (req: Request, res: Response, status: number, form: FormValues, fieldErrors: Record<string, string> = {}, error?: string) =>
    page(req, res, { status, title: 'New product', active: 'products', error, body: PAGES.create, context: { form, fieldErrors, types: PRODUCT_TYPES, currencies: CURRENCIES } });

  router.get('/products/new', (req, res) => newPage(req, res, 200, { type: 'digital', currency: 'USD' }));

  post('/products', async (req, res) => {
    const form: FormValues = {
      name: textField(req, 'name'),
      type: textField(req, 'type'),
      price: textField(req, 'price'),
      currency: textField(req, 'currency'),
      weight: textField(req, 'weight'),
      description: textField(req, 'description'),
      published: textField(req, 'published') === 'on',
    };
    const price = wholeNumber(String(form.price));
    const weight = wholeNumber(String(form.weight));
    const typed: Record<string, string> = {};
    if (price === null) typed.price = 'Type a whole number of the currency’s units, such as 25';
    if (String(form.weight).trim() !== '' && weight === null) typed.weight = 'Type a whole number of grams, such as 250';
    const parsed = CreateProductBody.safeParse({
      name: form.name,
      type: form.type,
      price: price ?? 1,
      currency: form.currency,
      published: form.published,
      ...(weight !== null ? { weight } : {}),
      ...(String(form.description).trim() ? { description: form.description } : {}),
    });
    if (!parsed.success || Object.keys(typed).length > 0) return newPage(req, res, 400, form, { ...(parsed.success ? {} : fieldErrorsByPath(parsed.error)), ...typed });
    let created: ProductDto;
    try {
      created = await products.create(identityOf(req).auth, parsed.data);
    } catch (err) {
      // The plan's product cap: said above the form, which keeps what was typed.
      if (err instanceof AppError && err.code === 'QUOTA_EXCEEDED') return newPage(req, res, 403, form, {}, err.message);
      throw err;
    }
    res.redirect(303, `${req.baseUrl}/products/${created.id}?notice=product-created`);
  });

  const editPage = async (req: Request, res: Response, status: number, extra: { form?: FormValues; fieldErrors?: Record<string, string> } = {}) => {
    const { auth } = identityOf(req);
    const product = await products.retrieve(auth, String(req.params.id));
    // An archived product is edited only once restored (every write refuses it, as in the API).
    if (product.archived) throw notFound('Product');
    const form = extra.form ?? { name: product.name, price: String(product.price), description: product.description ?? '', published: product.published };
    const buyNowUrl = auth.account.slug ? `${config.PUBLIC_BASE_URL}/api/v1/storefront/public/${auth.account.slug}/${product.slug}/checkout` : null;
    page(req, res, {
      status,
      title: product.name,
      active: 'products',
      body: PAGES.edit,
      context: { product, priceMinor: priceMinor(product), digital: product.type === 'digital', buyNowUrl, test: auth.environment === 'test', maxFileSize: bytesText(MAX_FILE_SIZE), form, fieldErrors: extra.fieldErrors ?? {} },
    });
  };

  router.get('/products/:id', (req, res) => editPage(req, res, 200));

  post('/products/:id', async (req, res) => {
    const form: FormValues = { name: textField(req, 'name'), price: textField(req, 'price'), description: textField(req, 'description'), published: textField(req, 'published') === 'on' };
    const price = wholeNumber(String(form.price));
    const parsed = UpdateProductBody.safeParse({ name: form.name, price: price ?? 1, description: String(form.description).trim() ? form.description : null, published: form.published });
    const typed: Record<string, string> = price === null ? { price: 'Type a whole number of the currency’s units, such as 25' } : {};
    if (!parsed.success || price === null) return editPage(req, res, 400, { form, fieldErrors: { ...(parsed.success ? {} : fieldErrorsByPath(parsed.error)), ...typed } });
    try {
      await products.update(identityOf(req).auth, String(req.params.id), parsed.data);
    } catch (err) {
      // A variant priced above the new price (the products service's rule) is about the price field.
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return editPage(req, res, 400, { form, fieldErrors: { price: err.message } });
      throw err;
    }
    res.redirect(303, `${req.baseUrl}/products/${String(req.params.id)}?notice=product-saved`);
  });

  // multipart/form-data, read by the upload itself (never buffered): the form's CSRF token is its first field, checked
  // by the parser before a byte of the file is stored; the upload has the API route's hour to arrive.
  router.post('/products/:id/files', sameOrigin, requireIdentity, async (req, res) => {
    if (req.is('multipart/form-data') !== 'multipart/form-data') throw new AppError('VALIDATION_ERROR', 'Send the upload form as multipart/form-data');
    extendDeadline(req, res, MAX_UPLOAD_DURATION_MS);
    const id = String(req.params.id);
    try {
      await productFiles.upload(identityOf(req).auth, id, req, { check: (fields) => assertCsrfToken(req, fields._csrf) });
    } catch (err) {
      // A refused file (empty, too large, past the plan's storage, a bad name) is said beside the field.
      if (err instanceof AppError && ['VALIDATION_ERROR', 'FILE_TOO_LARGE', 'QUOTA_EXCEEDED'].includes(err.code)) {
        return editPage(req, res, err.code === 'QUOTA_EXCEEDED' ? 403 : 400, { fieldErrors: { file: err.message } });
      }
      throw err;
    }
    res.redirect(303, `${req.baseUrl}/products/${id}?notice=file-uploaded`);
  });

  post('/products/:id/archive', async (req, res) => {
    await products.archive(identityOf(req).auth, String(req.params.id));
    res.redirect(303, `${req.baseUrl}/products?notice=archived`);
  });

  post('/products/:id/restore', async (req, res) => {
    await products.restore(identityOf(req).auth, String(req.params.id));
    res.redirect(303, `${req.baseUrl}/products?notice=restored`);
  });
}
