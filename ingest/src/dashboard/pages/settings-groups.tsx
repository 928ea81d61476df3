import type { Response, Router } from 'express';
import type { GroupRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { formatMoney, toMajorUnits } from '../../money.js';
import { Field, FormRefusal, TextareaField, type Typed, typedText } from '../../pages/fields.js';
import { count } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { RecordId } from '../../pages/record-id.js';
import { orRefused, type Refusal } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { GroupCreate, type GroupObject, GroupUpdate } from '../../resources/groups/groups.schema.js';
import { toGroup } from '../../resources/groups/groups.serializer.js';
import { createGroup, deleteGroup, listGroups, requireGroup, updateGroup } from '../../resources/groups/groups.service.js';
import { listPartners } from '../../resources/partners/partners.service.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf } from '../layout.js';
import { amountField, SettingsLayout } from '../settings-layout.js';

export const groupNotices: Record<string, string> = {
  'group-created': 'Group created.',
  'group-saved': 'Group saved.',
  'group-deleted': 'Group deleted. Its partners moved to the default group.',
};

const LABELS = { name: 'Name', description: 'Description', minimum_payout: 'Minimum payout', default: 'Default group' };

/** A group form refused, with what was typed in it (none for the delete button). */
interface Refused {
  refusal: Refusal;
  typed?: Typed;
}

export function registerGroupPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db } = deps;

  /** The group of the program in the URL; another program's or organization's is a 404. */
  async function programGroup(ctx: ProgramPageContext, groupId: string): Promise<GroupRow> {
    const group = await requireGroup(db, ctx.user.organization_id, groupId);
    if (group.program_id !== ctx.program.id) throw notFound('group', groupId);
    return group;
  }

  /** The form's fields as the API's: the minimum in the program currency's major unit, empty = the program's. */
  const groupFields = (body: Record<string, unknown>, currency: string) => ({
    name: body.name,
    description: body.description,
    default: body.default === 'on' ? true : undefined,
    minimum_payout: amountField(body.minimum_payout, currency, 'minimum_payout') ?? body.minimum_payout,
  });

  const partnersIn = async (ctx: ProgramPageContext, groupId: string) =>
    (await listPartners(db, ctx.user.organization_id, { program_id: ctx.program.id, group_id: groupId, limit: 1 })).total_count;

  async function listPage(res: Response, ctx: ProgramPageContext, refused?: Refused) {
    const groups = (await listGroups(db, ctx.user.organization_id, { program_id: ctx.program.id, limit: 100, order: 'asc' })).rows;
    const sizes = await Promise.all(groups.map((g) => partnersIn(ctx, g.id)));
    sendPage(res, <GroupListPage ctx={ctx} groups={groups} sizes={sizes} refused={refused} />, refused?.refusal.status);
  }

  async function groupPage(res: Response, ctx: ProgramPageContext, group: GroupObject, refused?: Refused) {
    sendPage(res, <GroupPage ctx={ctx} group={group} size={await partnersIn(ctx, group.id)} refused={refused} />, refused?.refusal.status);
  }

  router.get('/programs/:programId/settings/groups', async (req, res) => {
    await listPage(res, await contextOf(res, 'settings', req.params.programId));
  });

  router.post('/programs/:programId/settings/groups', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const body = (req.body ?? {}) as Record<string, unknown>;
    await orRefused(
      async () => {
        const input = fromFields(
          GroupCreate,
          { ...groupFields(body, program.currency_code), program_id: program.id },
          ['program_id', ...Object.keys(LABELS)],
          'body',
        );
        const group = await createGroup(db, ctx.user.organization_id, input);
        res.redirect(303, programPath(program, `/settings/groups/${group.id}?notice=group-created`));
      },
      LABELS,
      (refusal) => listPage(res, ctx, { refusal, typed: body }),
    );
  });

  router.get('/programs/:programId/settings/groups/:groupId', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    await groupPage(res, ctx, toGroup(await programGroup(ctx, req.params.groupId)));
  });

  router.post('/programs/:programId/settings/groups/:groupId', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const group = toGroup(await programGroup(ctx, req.params.groupId));
    const body = (req.body ?? {}) as Record<string, unknown>;
    await orRefused(
      async () => {
        const input = fromFields(GroupUpdate, groupFields(body, program.currency_code), Object.keys(LABELS), 'body', [
          'description',
          'minimum_payout',
        ]);
        await updateGroup(db, ctx.user.organization_id, group.id, input);
        res.redirect(303, programPath(program, `/settings/groups/${group.id}?notice=group-saved`));
      },
      LABELS,
      (refusal) => groupPage(res, ctx, group, { refusal, typed: body }),
    );
  });

  router.post('/programs/:programId/settings/groups/:groupId/delete', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const group = toGroup(await programGroup(ctx, req.params.groupId));
    await orRefused(
      async () => {
        await deleteGroup(db, ctx.user.organization_id, group.id);
        res.redirect(303, programPath(ctx.program, '/settings/groups?notice=group-deleted'));
      },
      {},
      // The default group cannot go: said at the top of its page.
      (refusal) => groupPage(res, ctx, group, { refusal }),
    );
  });
}

function minimumText(group: GroupObject, programMinimum: number, currency: string) {
  return group.minimum_payout === null ? (
    <span class="muted">the program's ({formatMoney(programMinimum, currency)})</span>
  ) : (
    formatMoney(group.minimum_payout, currency)
  );
}

/** The group form's fields: the group's, or what was typed in a refused form. */
function GroupFields({
  ctx,
  group,
  refused,
  idPrefix,
}: {
  ctx: ProgramPageContext;
  group: GroupObject | null;
  refused?: Refused;
  idPrefix: string;
}) {
  const program = ctx.program;
  const currency = program.currency_code;
  const typed = refused?.typed;
  const refusal = refused?.refusal;
  const saved = group?.minimum_payout == null ? '' : toMajorUnits(group.minimum_payout, currency);
  return (
    <>
      <FormRefusal refusal={refusal} fields={['name', 'description', 'minimum_payout']} />
      <Field
        name="name"
        id={`${idPrefix}-name`}
        label={LABELS.name}
        value={typedText(typed, 'name', group?.name ?? '')}
        required
        maxlength={200}
        refusal={refusal}
      />
      <TextareaField
        name="description"
        id={`${idPrefix}-description`}
        label={`${LABELS.description} (optional)`}
        rows={2}
        maxlength={2000}
        value={typedText(typed, 'description', group?.description ?? '')}
        refusal={refusal}
      />
      <Field
        name="minimum_payout"
        id={`${idPrefix}-minimum`}
        label={`${LABELS.minimum_payout} (${currency}, optional)`}
        inputmode="decimal"
        value={typedText(typed, 'minimum_payout', saved)}
        hint={`Empty: the program's minimum (${formatMoney(program.minimum_payout, currency)}).`}
        refusal={refusal}
      />
      {group?.default ? null : (
        <label class="check">
          <input type="checkbox" name="default" checked={typed?.default === 'on'} /> Make this the default group (new partners join it)
        </label>
      )}
    </>
  );
}

function GroupListPage({
  ctx,
  groups,
  sizes,
  refused,
}: {
  ctx: ProgramPageContext;
  groups: GroupObject[];
  sizes: number[];
  refused?: Refused;
}) {
  const program = ctx.program;
  const currency = program.currency_code;
  const base = programPath(program, '/settings/groups');
  return (
    <SettingsLayout ctx={ctx} tab="/groups" title="Groups">
      <div class="page-head">
        <h2>Groups</h2>
        <details class="add" open={refused !== undefined}>
          <summary class="button primary">New group</summary>
          <form method="post" action={base} class="stack" aria-label="New group">
            <Csrf ctx={ctx} />
            <GroupFields ctx={ctx} group={null} refused={refused} idPrefix="new-group" />
            <button type="submit" class="primary">
              Create group
            </button>
          </form>
        </details>
      </div>
      <p class="muted">
        Groups give some partners their own commission flows, promotion codes or minimum payout. New partners join the default group.
      </p>
      {groups.length <= 1 ? (
        <p class="empty">
          Only the default group so far: every partner is in it. Create a group to reward some partners differently (for example
          "Influencers" with a flow of its own), then move partners into it with <code>PUT /v1/partners/:id {'{group_id}'}</code>.
        </p>
      ) : null}
      <DataTable
        caption="Groups"
        rows={groups.map((g, i) => ({ group: g, size: sizes[i] ?? 0 }))}
        empty="No groups."
        columns={[
          {
            head: 'Group',
            cell: ({ group: g }) => (
              <>
                <a href={`${base}/${g.id}`}>{g.name}</a> {g.default ? <span class="badge badge-active">default</span> : null}
                {g.description ? <span class="sub">{g.description}</span> : null}
              </>
            ),
          },
          { head: 'Partners', numeric: true, cell: ({ size }) => count(size) },
          { head: 'Minimum payout', numeric: true, cell: ({ group: g }) => minimumText(g, program.minimum_payout, currency) },
        ]}
      />
    </SettingsLayout>
  );
}

function GroupPage({ ctx, group, size, refused }: { ctx: ProgramPageContext; group: GroupObject; size: number; refused?: Refused }) {
  const program = ctx.program;
  const base = programPath(program, `/settings/groups/${group.id}`);
  return (
    <SettingsLayout ctx={ctx} tab="/groups" title={group.name}>
      <p class="crumbs">
        <a href={programPath(program, '/settings/groups')}>Groups</a> /
      </p>
      <h2>
        {group.name} {group.default ? <span class="badge badge-active">default</span> : null}
      </h2>
      <p class="sub">
        {count(size)} partner{size === 1 ? '' : 's'} · public key <RecordId id={group.public_key} copyLabel="Copy the public key" />
      </p>
      {refused && !refused.typed ? <FormRefusal refusal={refused.refusal} /> : null}
      <form method="post" action={base} class="stack" aria-label={`Edit ${group.name}`}>
        <Csrf ctx={ctx} />
        <GroupFields ctx={ctx} group={group} refused={refused?.typed ? refused : undefined} idPrefix="group" />
        <button type="submit" class="primary">
          Save group
        </button>
      </form>
      {group.default ? (
        <p class="muted">The default group cannot be deleted: make another group the default first.</p>
      ) : (
        <form method="post" action={`${base}/delete`} class="actions">
          <Csrf ctx={ctx} />
          <button
            type="submit"
            class="danger"
            data-confirm={`Delete the group “${group.name}”? Its ${size} partner(s) move to the default group; its flows stop matching anyone.`}
          >
            Delete group
          </button>
        </form>
      )}
    </SettingsLayout>
  );
}
