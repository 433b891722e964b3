import type { QueryInterface } from 'sequelize';

// ai_generation_runs by product: the activities count a product's runs (activities/ai-generation.ts, RUN_COUNT).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE INDEX ai_generation_runs_product ON ai_generation_runs (product_id);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP INDEX ai_generation_runs_product;
  `);
}
