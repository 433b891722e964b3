import type { Account, PaymentMethod } from '../../db/models';
import { httpUrlOrNull } from './branding';

/**
 * The merchant's manual-payment instructions per method (storefront settings `manualPayment`): what a local-mode
 * buyer is told once they chose a method, and so which methods local mode can offer at all
 * (docs/decisions/hosted-checkout.md, "Methods in local mode").
 */

export type ManualPaymentFields = Pick<
  Account,
  | 'manualBankName'
  | 'manualAccountNumber'
  | 'manualAccountHolder'
  | 'manualPaymentInstructions'
  | 'manualQrisImageUrl'
  | 'manualQrisInstructions'
  | 'manualEwalletInstructions'
  | 'manualIntlWalletInstructions'
>;

/** What the buyer of one method reads; a field the method does not have, or the merchant left empty, is null. */
export interface ManualPaymentInstructions {
  /** Bank transfer (`va`). */
  bankName: string | null;
  accountNumber: string | null;
  accountHolder: string | null;
  /** QRIS: the merchant's static code, an http(s) image. */
  qrisImageUrl: string | null;
  /** The merchant's free text for the method. */
  text: string | null;
}

const none: ManualPaymentInstructions = { bankName: null, accountNumber: null, accountHolder: null, qrisImageUrl: null, text: null };

/**
 * The instructions of `method`, or null when the merchant gave none. Card has none by definition: no card can be
 * charged without a payment provider, and a buyer must never type card details into a free-text instruction.
 */
export function manualInstructionsFor(account: ManualPaymentFields, method: PaymentMethod): ManualPaymentInstructions | null {
  let found: ManualPaymentInstructions;
  switch (method) {
    case 'va':
      // The bank-transfer columns predate the other methods; existing settings keep meaning a bank transfer.
      found = { ...none, bankName: account.manualBankName, accountNumber: account.manualAccountNumber, accountHolder: account.manualAccountHolder, text: account.manualPaymentInstructions };
      break;
    case 'qris':
      found = { ...none, qrisImageUrl: httpUrlOrNull(account.manualQrisImageUrl), text: account.manualQrisInstructions };
      break;
    case 'ewallet':
      found = { ...none, text: account.manualEwalletInstructions };
      break;
    case 'intl_wallet':
      found = { ...none, text: account.manualIntlWalletInstructions };
      break;
    case 'card':
      return null;
  }
  return Object.values(found).some((value) => value) ? found : null;
}

/** The methods of `allowed` that a local-mode buyer can be offered: those the merchant gave instructions for. */
export function localPaymentMethods(allowed: readonly PaymentMethod[], account: ManualPaymentFields): PaymentMethod[] {
  return allowed.filter((method) => manualInstructionsFor(account, method) !== null);
}
