import type { Model, ModelStatic } from 'sequelize';

const lists = new WeakMap<ModelStatic<Model>, Map<string, string>>();

/**
 * `<alias>.<column> AS "<attribute>"` for every attribute of `model` (bare columns without an alias), so raw
 * rows arrive in the model's camelCase. Built once per model and alias: list pages run it on every request.
 */
export function selectColumns(model: ModelStatic<Model>, alias = ''): string {
  let byAlias = lists.get(model);
  if (!byAlias) {
    byAlias = new Map();
    lists.set(model, byAlias);
  }
  let list = byAlias.get(alias);
  if (list === undefined) {
    const prefix = alias ? `${alias}.` : '';
    list = Object.entries(model.getAttributes())
      .map(([attribute, definition]) => `${prefix}${definition.field ?? attribute} AS "${attribute}"`)
      .join(', ');
    byAlias.set(alias, list);
  }
  return list;
}
