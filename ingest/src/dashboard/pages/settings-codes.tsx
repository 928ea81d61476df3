import type { Response, Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { badRequest, notFound } from '../../http/errors.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { Field, FormRefusal, SelectField, type Typed, typedText } from '../../pages/fields.js';
import { day, partnerName } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { orRefused, type Refusal } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
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

/** The new-code form's fields, by the API parameter each sets (a partner is named by e-mail). */
const LABELS = { code: 'Code', type: 'Discount', value: 'Value', partner: "Partner's e-mail", group_id: 'Group' };

/** The new-code form refused, with what was typed in it. */
interface Refused {
  refusal: Refusal;
  typed: Typed;
}

/** The refusal beside the field it is about: the partner's id is the e-mail field, and the one conflict is a code the program has. */
function onCodeForm(refusal: Refusal): Refusal {
  if (refusal.field === 'partner_id') return { ...refusal, field: 'partner' };
  if (refusal.status === 409) return { ...refusal, field: 'code' };
  return refusal;
}

export function registerCodePages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db } = deps;

  async function listPage(res: Response, ctx: ProgramPageContext, cursor: Cursor, refused?: Refused) {
    const org = ctx.user.organization_id;
    const [codes, groups] = await Promise.all([
      listPromotionCodes(db, org, { program_id: ctx.program.id, expand: ['partner'], limit: PAGE_SIZE, ...cursor }),
      listGroups(db, org, { program_id: ctx.program.id, limit: 100, order: 'asc' }),
    ]);
    sendPage(res, <CodeListPage ctx={ctx} codes={codes} groups={groups.rows} cursor={cursor} refused={refused} />, refused?.refusal.status);
  }

  router.get('/programs/:programId/settings/promotion-codes', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    await listPage(res, ctx, fromFields(CodeListCursor, req.query, ['starting_after', 'ending_before'], 'query'));
  });

  router.post('/programs/:programId/settings/promotion-codes', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const body = (req.body ?? {}) as Record<string, unknown>;
    await orRefused(
      async () => {
        let partnerId: string | undefined;
        const email = typeof body.partner === 'string' ? body.partner.trim() : '';
        if (email) {
          const found = await listPartners(db, ctx.user.organization_id, { program_id: program.id, email, limit: 1 });
          if (!found.rows[0]) throw badRequest(`No partner of this program has the e-mail ${email}`, 'partner');
          partnerId = found.rows[0].id;
        }
        const value =
          body.type === 'fixed' ? (amountField(body.value, program.currency_code, 'value') ?? body.value) : numberField(body.value);
        const input = fromFields(
          PromotionCodeCreate,
          { program_id: program.id, code: body.code, type: body.type, value, partner_id: partnerId, group_id: body.group_id },
          ['program_id', 'code', 'type', 'value', 'partner_id', 'group_id'],
          'body',
        );
        await createPromotionCode(db, ctx.user.organization_id, input);
        res.redirect(303, programPath(program, '/settings/promotion-codes?notice=code-created'));
      },
      { ...LABELS, partner_id: LABELS.partner },
      (refusal) => listPage(res, ctx, {}, { refusal: onCodeForm(refusal), typed: body }),
    );
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
  refused,
}: {
  ctx: ProgramPageContext;
  codes: Page<PromotionCodeObject>;
  groups: GroupObject[];
  cursor: Cursor;
  refused?: Refused;
}) {
  const program = ctx.program;
  const currency = program.currency_code;
  const base = programPath(program, '/settings/promotion-codes');
  const owner = (c: PromotionCodeObject) => {
    if (c.partner) return `Partner: ${partnerName(c.partner)}`;
    if (c.group_id) return `Group: ${groups.find((g) => g.id === c.group_id)?.name ?? 'a deleted group'}`;
    return 'Whole program';
  };
  const typed = refused?.typed;
  const refusal = refused?.refusal;
  return (
    <SettingsLayout ctx={ctx} tab="/promotion-codes" title="Promotion codes">
      <div class="page-head">
        <h2>Promotion codes</h2>
        <details class="add" open={refused !== undefined}>
          <summary class="button primary">New promotion code</summary>
          <form method="post" action={base} class="stack" aria-label="New promotion code">
            <Csrf ctx={ctx} />
            <FormRefusal refusal={refusal} fields={Object.keys(LABELS)} />
            <Field
              name="code"
              id="code-code"
              label={LABELS.code}
              required
              maxlength={64}
              placeholder="ALICE20"
              value={typedText(typed, 'code')}
              hint="Letters, digits, _ and -; unique in the program whatever the case."
              refusal={refusal}
            />
            <SelectField
              name="type"
              id="code-type"
              label={LABELS.type}
              value={typedText(typed, 'type', 'percentage')}
              options={[
                ['percentage', 'Percentage off'],
                ['fixed', `Amount off (${currency})`],
              ]}
              refusal={refusal}
            />
            <Field
              name="value"
              id="code-value"
              label={LABELS.value}
              inputmode="decimal"
              required
              placeholder="20"
              value={typedText(typed, 'value')}
              hint="A percentage 0–100, or an amount such as 10.00."
              refusal={refusal}
            />
            <Field
              name="partner"
              id="code-partner"
              label={`${LABELS.partner} (optional)`}
              type="email"
              maxlength={254}
              value={typedText(typed, 'partner')}
              refusal={refusal}
            />
            <SelectField
              name="group_id"
              id="code-group"
              label="or group"
              value={typedText(typed, 'group_id')}
              options={[['', '—'], ...groups.map((g) => [g.id, g.name] as const)]}
              hint="A partner's code also attributes the customers who use it to them. With neither, the code is the whole program's."
              refusal={refusal}
            />
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
      <DataTable
        caption="Promotion codes"
        rows={codes.rows}
        empty="No promotion codes yet. Create one for a partner (e.g. ALICE20): customers who sign up with it are attributed to them even without a click."
        columns={[
          { head: 'Code', cell: (c) => <code>{c.code}</code> },
          { head: 'Discount', cell: (c) => discountText(c, currency) },
          { head: 'Owner', cell: (c) => owner(c) },
          { head: 'Status', cell: (c) => <StatusBadge status={c.active ? 'active' : 'inactive'} /> },
          { head: 'Created', cell: (c) => day(c.created_at) },
          {
            head: <span class="visually-hidden">Actions</span>,
            cell: (c) => (
              <span class="row-actions">
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
              </span>
            ),
          },
        ]}
      />
      <Pager page={codes} base={base} filters={{}} cursor={cursor} />
    </SettingsLayout>
  );
}
