import { AppError } from '../../lib/errors';
import { PartnerError } from '../../lib/shipping/types';

/**
 * A partner call from a request: its refusal is the request's fault or the shipment's state (the caller says
 * which by `refused`), its absence is `502 PARTNER_UNAVAILABLE` and nothing is written.
 */
export async function partnerCall<T>(call: () => Promise<T>, refused: (err: PartnerError) => AppError = (err) => new AppError('VALIDATION_ERROR', err.message)): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof PartnerError)) throw err;
    if (err.kind === 'refused') throw refused(err);
    throw new AppError('PARTNER_UNAVAILABLE', 'The shipping partner is not answering; nothing was changed. Try again shortly.', { reason: err.message });
  }
}
