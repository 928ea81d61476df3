import type { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { day, partnerName } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { sendPage } from '../../pages/render.js';
import type { GroupObject } from '../../resources/groups/groups.schema.js';
import { listGroups } from '../../resources/groups/groups.service.js';
import { listPartners } from '../../resources/partners/partners.service.js';
import {
  PromotionCodeCreate,
  type PromotionCodeObject,
  PromotionCodeUpdate,
} from '../../resources/promotion-codes/promotion-codes.schema.js';
import {
  createPromotionCode,
  deletePromotionCode,
  listPromotionCodes,
  requirePromotionCode,
  updatePromotionCode,
} from '../../resources/promotion-codes/promotion-codes.service.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf } from '../layout.js';
import { amountField, numberField, SettingsLayout } from '../settings-layout.js';

export const codeNotices: Record<string, string> = {
  'code-created': 'Promotion code created.',
  'code-activated': 'Promotion code activated.',
  'code-deactivated': 'Promotion code deactivated: it no longer applies to new customers.',
  'code-deleted': 'Promotion code deleted. Customers who used it keep it.',
};

const PAGE_SIZE = 50;

const CodeListCursor = z.strictObject({ starting_after: listParams.starting_after, ending_before: listParams.ending_before });

export function registerCodePages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db } = deps;

  router.get('/programs/:programId/settings/promotion-codes', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const org = ctx.user.organization_id;
    const program = ctx.program;
    const cursor = fromFields(CodeListCursor, req.query, ['starting_after', 'ending_before'], 'query');
    const [codes, groups] = await Promise.all([
      listPromotionCodes(db, org, { program_id: program.id, expand: ['partner'], limit: PAGE_SIZE, ...cursor }),
      listGroups(db, org, { program_id: program.id, limit: 100, order: 'asc' }),
    ]);
    sendPage(res, <CodeListPage ctx={ctx} codes={codes} groups={groups.rows} cursor={cursor} />);
  });

  router.post('/programs/:programId/settings/promotion-codes', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const body = (req.body ?? {}) as Record<string, unknown>;
    // A partner is named by e-mail; one not in this program is a 404, as the API's partner_id would be.
    let partnerId: string | undefined;
    const email = typeof body.partner === 'string' ? body.partner.trim() : '';
    if (email) {
      const found = await listPartners(db, ctx.user.organization_id, { program_id: program.id, email, limit: 1 });
      if (!found.rows[0]) throw notFound('partner', email, 'partner');
      partnerId = found.rows[0].id;
    }
    const value = body.type === 'fixed' ? (amountField(body.value, program.currency_code, 'value') ?? body.value) : numberField(body.value);
    const input = fromFields(
      PromotionCodeCreate,
      { program_id: program.id, code: body.code, type: body.type, value, partner_id: partnerId, group_id: body.group_id },
      ['program_id', 'code', 'type', 'value', 'partner_id', 'group_id'],
      'body',
    );
    await createPromotionCode(db, ctx.user.organization_id, input);
    res.redirect(303, programPath(program, '/settings/promotion-codes?notice=code-created'));
  });

  /** The code of the program in the URL; another program's or organization's is a 404. */
  async function programCode(ctx: ProgramPageContext, codeId: string) {
    const code = await requirePromotionCode(db, ctx.user.organization_id, codeId);
    if (code.program_id !== ctx.program.id) throw notFound('promotion code', codeId);
    return code;
  }

  router.post('/programs/:programId/settings/promotion-codes/:codeId/active', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const code = await programCode(ctx, req.params.codeId);
    const input = fromFields(PromotionCodeUpdate, { active: req.body?.active === 'true' }, ['active'], 'body');
    await updatePromotionCode(db, ctx.user.organization_id, code.id, input);
    res.redirect(303, programPath(ctx.program, `/settings/promotion-codes?notice=${input.active ? 'code-activated' : 'code-deactivated'}`));
  });

  router.post('/programs/:programId/settings/promotion-codes/:codeId/delete', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const code = await programCode(ctx, req.params.codeId);
    await deletePromotionCode(db, ctx.user.organization_id, code.id);
    res.redirect(303, programPath(ctx.program, '/settings/promotion-codes?notice=code-deleted'));
  });
}

function discountText(c: PromotionCodeObject, currency: string): string {
  return c.type === 'percentage' ? `${c.value}% off` : `${formatMoney(c.value, currency)} off`;
}

function CodeListPage({
  ctx,
  codes,
  groups,
  cursor,
}: {
  ctx: ProgramPageContext;
  codes: Page<PromotionCodeObject>;
  groups: GroupObject[];
  cursor: Cursor;
}) {
  const program = ctx.program;
  const currency = program.currency_code;
  const base = programPath(program, '/settings/promotion-codes');
  const owner = (c: PromotionCodeObject) => {
    if (c.partner) return `Partner: ${partnerName(c.partner)}`;
    if (c.group_id) return `Group: ${groups.find((g) => g.id === c.group_id)?.name ?? 'a deleted group'}`;
    return 'Whole program';
  };
  return (
    <SettingsLayout ctx={ctx} tab="/promotion-codes" title="Promotion codes">
      <div class="page-head">
        <h2>Promotion codes</h2>
        <details class="add">
          <summary class="button primary">New promotion code</summary>
          <form method="post" action={base} class="stack">
            <Csrf ctx={ctx} />
            <label for="code-code">Code</label>
            <input
              id="code-code"
              name="code"
              required
              maxlength={64}
              pattern="[A-Za-z0-9_\-]{1,64}"
              placeholder="ALICE20"
              aria-describedby="code-hint"
            />
            <span id="code-hint" class="hint">
              Letters, digits, _ and -; unique in the program whatever the case.
            </span>
            <label for="code-type">Discount</label>
            <select id="code-type" name="type">
              <option value="percentage">Percentage off</option>
              <option value="fixed">Amount off ({currency})</option>
            </select>
            <label for="code-value">Value</label>
            <input id="code-value" name="value" inputmode="decimal" required placeholder="20" aria-describedby="code-value-hint" />
            <span id="code-value-hint" class="hint">
              A percentage 0–100, or an amount such as 10.00.
            </span>
            <label for="code-partner">Partner's e-mail (optional)</label>
            <input id="code-partner" name="partner" type="email" maxlength={254} aria-describedby="code-owner-hint" />
            <label for="code-group">or group</label>
            <select id="code-group" name="group_id">
              <option value="">—</option>
              {groups.map((g) => (
                <option value={g.id}>{g.name}</option>
              ))}
            </select>
            <span id="code-owner-hint" class="hint">
              A partner's code also attributes the customers who use it to them. With neither, the code is the whole program's.
            </span>
            <button type="submit" class="primary">
              Create code
            </button>
          </form>
        </details>
      </div>
      <p class="muted">
        Codes your checkout accepts, reported with a customer's signup (<code>promotion_code</code>). Svc records which code a customer
        used; the discount itself is given by your checkout.
      </p>
      {codes.rows.length === 0 ? (
        <p class="empty">
          No promotion codes yet. Create one for a partner (e.g. ALICE20): customers who sign up with it are attributed to them even without
          a click.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Discount</th>
                <th scope="col">Owner</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {codes.rows.map((c) => (
                <tr>
                  <th scope="row">
                    <code>{c.code}</code>
                  </th>
                  <td>{discountText(c, currency)}</td>
                  <td>{owner(c)}</td>
                  <td>
                    <span class={`badge badge-${c.active ? 'active' : 'inactive'}`}>{c.active ? 'active' : 'inactive'}</span>
                  </td>
                  <td>{day(c.created_at)}</td>
                  <td class="row-actions">
                    <form method="post" action={`${base}/${c.id}/active`} class="inline">
                      <Csrf ctx={ctx} />
                      <input type="hidden" name="active" value={c.active ? 'false' : 'true'} />
                      <button type="submit" aria-label={`${c.active ? 'Deactivate' : 'Activate'} ${c.code}`}>
                        {c.active ? 'Deactivate' : 'Activate'}
                      </button>
                    </form>{' '}
                    <form method="post" action={`${base}/${c.id}/delete`} class="inline">
                      <Csrf ctx={ctx} />
                      <button
                        type="submit"
                        class="danger"
                        aria-label={`Delete ${c.code}`}
                        data-confirm={`Delete the code ${c.code}? Customers who used it keep it.`}
                      >
                        Delete
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={codes} base={base} filters={{}} cursor={cursor} />
    </SettingsLayout>
  );
}
