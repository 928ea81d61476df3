import type { Router } from 'express';
import type { GroupRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { formatMoney, toMajorUnits } from '../../money.js';
import { count } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { sendPage } from '../../pages/render.js';
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

  router.get('/programs/:programId/settings/groups', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const org = ctx.user.organization_id;
    const program = ctx.program;
    const groups = (await listGroups(db, org, { program_id: program.id, limit: 100, order: 'asc' })).rows;
    const sizes = await Promise.all(
      groups.map(async (g) => (await listPartners(db, org, { program_id: program.id, group_id: g.id, limit: 1 })).total_count),
    );
    sendPage(res, <GroupListPage ctx={ctx} groups={groups} sizes={sizes} />);
  });

  router.post('/programs/:programId/settings/groups', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const input = fromFields(
      GroupCreate,
      { ...groupFields(req.body ?? {}, program.currency_code), program_id: program.id },
      ['program_id', 'name', 'description', 'default', 'minimum_payout'],
      'body',
    );
    const group = await createGroup(db, ctx.user.organization_id, input);
    res.redirect(303, programPath(program, `/settings/groups/${group.id}?notice=group-created`));
  });

  router.get('/programs/:programId/settings/groups/:groupId', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const group = toGroup(await programGroup(ctx, req.params.groupId));
    const partners = await listPartners(db, ctx.user.organization_id, { program_id: ctx.program.id, group_id: group.id, limit: 1 });
    sendPage(res, <GroupPage ctx={ctx} group={group} size={partners.total_count} />);
  });

  router.post('/programs/:programId/settings/groups/:groupId', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const group = await programGroup(ctx, req.params.groupId);
    const input = fromFields(
      GroupUpdate,
      groupFields(req.body ?? {}, program.currency_code),
      ['name', 'description', 'default', 'minimum_payout'],
      'body',
      ['description', 'minimum_payout'],
    );
    await updateGroup(db, ctx.user.organization_id, group.id, input);
    res.redirect(303, programPath(program, `/settings/groups/${group.id}?notice=group-saved`));
  });

  router.post('/programs/:programId/settings/groups/:groupId/delete', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const group = await programGroup(ctx, req.params.groupId);
    await deleteGroup(db, ctx.user.organization_id, group.id);
    res.redirect(303, programPath(ctx.program, '/settings/groups?notice=group-deleted'));
  });
}

function minimumText(group: GroupObject, programMinimum: number, currency: string) {
  return group.minimum_payout === null ? (
    <span class="muted">the program's ({formatMoney(programMinimum, currency)})</span>
  ) : (
    formatMoney(group.minimum_payout, currency)
  );
}

function GroupFields({ ctx, group, idPrefix }: { ctx: ProgramPageContext; group: GroupObject | null; idPrefix: string }) {
  const program = ctx.program;
  const currency = program.currency_code;
  return (
    <>
      <label for={`${idPrefix}-name`}>Name</label>
      <input id={`${idPrefix}-name`} name="name" value={group?.name ?? ''} required maxlength={200} />
      <label for={`${idPrefix}-description`}>Description (optional)</label>
      <textarea id={`${idPrefix}-description`} name="description" rows={2} maxlength={2000}>
        {group?.description ?? ''}
      </textarea>
      <label for={`${idPrefix}-minimum`}>Minimum payout ({currency}, optional)</label>
      <input
        id={`${idPrefix}-minimum`}
        name="minimum_payout"
        inputmode="decimal"
        value={group?.minimum_payout == null ? '' : toMajorUnits(group.minimum_payout, currency)}
        aria-describedby={`${idPrefix}-minimum-hint`}
      />
      <span id={`${idPrefix}-minimum-hint`} class="hint">
        Empty: the program's minimum ({formatMoney(program.minimum_payout, currency)}).
      </span>
      {group?.default ? null : (
        <label class="check">
          <input type="checkbox" name="default" /> Make this the default group (new partners join it)
        </label>
      )}
    </>
  );
}

function GroupListPage({ ctx, groups, sizes }: { ctx: ProgramPageContext; groups: GroupObject[]; sizes: number[] }) {
  const program = ctx.program;
  const currency = program.currency_code;
  const base = programPath(program, '/settings/groups');
  return (
    <SettingsLayout ctx={ctx} tab="/groups" title="Groups">
      <div class="page-head">
        <h2>Groups</h2>
        <details class="add">
          <summary class="button primary">New group</summary>
          <form method="post" action={base} class="stack">
            <Csrf ctx={ctx} />
            <GroupFields ctx={ctx} group={null} idPrefix="new-group" />
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
      <div class="table-wrap">
        <table class="data">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col" class="num">
                Partners
              </th>
              <th scope="col" class="num">
                Minimum payout
              </th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g, i) => (
              <tr>
                <th scope="row">
                  <a href={`${base}/${g.id}`}>{g.name}</a> {g.default ? <span class="badge badge-active">default</span> : null}
                  {g.description ? <span class="sub">{g.description}</span> : null}
                </th>
                <td class="num">{count(sizes[i] ?? 0)}</td>
                <td class="num">{minimumText(g, program.minimum_payout, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </SettingsLayout>
  );
}

function GroupPage({ ctx, group, size }: { ctx: ProgramPageContext; group: GroupObject; size: number }) {
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
        {count(size)} partner{size === 1 ? '' : 's'} · public key <code>{group.public_key}</code>
      </p>
      <form method="post" action={base} class="stack">
        <Csrf ctx={ctx} />
        <GroupFields ctx={ctx} group={group} idPrefix="group" />
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
