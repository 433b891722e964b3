import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** `upload`: the blob is ours (in BlobStorage) and goes when the row goes; `external`: a registered pointer only. */
export type ProductFileSource = 'upload' | 'external';

/** A file attached to a product; `fileSize` counts towards the workspace's storage quota either way. */
export class ProductFile extends Model<InferAttributes<ProductFile>, InferCreationAttributes<ProductFile>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare productId: string;
  declare fileName: string;
  declare fileSize: number;
  declare mimeType: string | null;
  declare storageKey: string;
  declare source: ProductFileSource;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ProductFile.init(
      {
        ...tenantColumns,
        productId: { type: DataTypes.TEXT, allowNull: false },
        fileName: { type: DataTypes.TEXT, allowNull: false },
        // bigint comes back from pg as a string; file sizes are far below 2^53.
        fileSize: {
          type: DataTypes.BIGINT,
          allowNull: false,
          get(this: ProductFile) {
            return Number(this.getDataValue('fileSize'));
          },
        },
        mimeType: DataTypes.TEXT,
        storageKey: { type: DataTypes.TEXT, allowNull: false },
        source: { type: DataTypes.TEXT, allowNull: false },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'product_files', updatedAt: false },
    );
  }
}
