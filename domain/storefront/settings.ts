import { UniqueConstraintError, type Transaction } from 'sequelize';
import { Account, CustomDomain } from '../../db/models';
import { audit } from '../../db/outbox';
import { AppError, notFound } from '../../lib/errors';
import { auditActor, type AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import type { UpdateStorefrontSettingsBody } from './settings-inputs';

export function toStorefrontSettingsDto(account: Account, customDomains: string[]) {
  return {
    accountId: account.id,
    name: account.name,
    slug: account.slug,
    description: account.description,
    brandColor: account.brandColor,
    brandLogo: account.brandLogo,
    brandBanner: account.brandBanner,
    pixels: { metaPixelId: account.metaPixelId, googleTagId: account.googleTagId, tiktokPixelId: account.tiktokPixelId },
    customDomains,
    manualPayment: {
      bankName: account.manualBankName,
      accountNumber: account.manualAccountNumber,
      accountHolder: account.manualAccountHolder,
      instructions: account.manualPaymentInstructions,
      qris: { imageUrl: account.manualQrisImageUrl, instructions: account.manualQrisInstructions },
      ewallet: { instructions: account.manualEwalletInstructions },
      intlWallet: { instructions: account.manualIntlWalletInstructions },
    },
    updatedAt: account.updatedAt.toISOString(),
  };
}

const domainTaken = (hostname: string) =>
  new AppError('VALIDATION_ERROR', `customDomains: ${hostname} already serves another storefront`, [{ field: 'customDomains', message: `${hostname} is taken` }], {
    conflict: true,
  });

/** Storefront settings belong to the workspace (both environments), like its name and branding. */
export function createStorefrontSettingsService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  async function domainsOf(accountId: string, transaction?: Transaction): Promise<string[]> {
    const rows = await CustomDomain.findAll({ where: { accountId }, order: [['hostname', 'ASC']], transaction });
    return rows.map((row) => row.hostname);
  }

  return {
    async get(auth: AuthContext) {
      const account = await Account.findByPk(auth.accountId);
      if (!account) throw notFound('Workspace');
      return toStorefrontSettingsDto(account, await domainsOf(auth.accountId));
    },

    async update(auth: AuthContext, input: UpdateStorefrontSettingsBody) {
      const { customDomains, manualPayment, ...fields } = input;
      return sequelize.transaction(async (tx) => {
        const account = await Account.findByPk(auth.accountId, { lock: tx.LOCK.UPDATE, transaction: tx });
        if (!account) throw notFound('Workspace');
        account.set({
          ...fields,
          ...(manualPayment?.bankName !== undefined ? { manualBankName: manualPayment.bankName } : {}),
          ...(manualPayment?.accountNumber !== undefined ? { manualAccountNumber: manualPayment.accountNumber } : {}),
          ...(manualPayment?.accountHolder !== undefined ? { manualAccountHolder: manualPayment.accountHolder } : {}),
          ...(manualPayment?.instructions !== undefined ? { manualPaymentInstructions: manualPayment.instructions } : {}),
          ...(manualPayment?.qris?.imageUrl !== undefined ? { manualQrisImageUrl: manualPayment.qris.imageUrl } : {}),
          ...(manualPayment?.qris?.instructions !== undefined ? { manualQrisInstructions: manualPayment.qris.instructions } : {}),
          ...(manualPayment?.ewallet?.instructions !== undefined ? { manualEwalletInstructions: manualPayment.ewallet.instructions } : {}),
          ...(manualPayment?.intlWallet?.instructions !== undefined ? { manualIntlWalletInstructions: manualPayment.intlWallet.instructions } : {}),
        });
        account.changed('updatedAt', true);
        await account.save({ transaction: tx });
        if (customDomains !== undefined) {
          await CustomDomain.destroy({ where: { accountId: auth.accountId }, transaction: tx });
          for (const hostname of customDomains) {
            // A savepoint per host, so a host taken by another workspace is a clean 409, not an aborted transaction.
            try {
              await sequelize.transaction({ transaction: tx }, (sp) => CustomDomain.create({ hostname, accountId: auth.accountId }, { transaction: sp }));
            } catch (err) {
              if (err instanceof UniqueConstraintError) throw domainTaken(hostname);
              throw err;
            }
          }
        }
        await audit(tx, auth, {
          action: 'storefront_settings.updated',
          ...auditActor(auth),
          targetType: 'account',
          targetId: auth.accountId,
          data: { fields: Object.keys(input) },
        });
        return toStorefrontSettingsDto(account, await domainsOf(auth.accountId, tx));
      });
    },
  };
}

export type StorefrontSettingsService = ReturnType<typeof createStorefrontSettingsService>;
