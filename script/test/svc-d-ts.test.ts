/**
 * script/svc.d.ts, the declaration site owners copy: its examples must compile against it, and it
 * must describe what the script really does (checked by `npm run typecheck`, which includes test/).
 */
import { describe, expectTypeOf, it } from 'vitest';

// Never called: these lines only have to type-check, as a site owner's code would.
async function pageCode(email: string): Promise<void> {
  window.svc = window.svc || [];
  window.svc.push(['consent']);
  window.svc.push(['signup', email]);
  if (window.svc_data && !window.svc_data.customer_id && window.svc && !Array.isArray(window.svc)) {
    try {
      const { customer_id, partner_id } = await window.svc.signup(email);
      expectTypeOf(customer_id).toEqualTypeOf<string>();
      expectTypeOf(partner_id).toEqualTypeOf<string>();
    } catch (err) {
      expectTypeOf((err as SvcError).status).toEqualTypeOf<number>();
    }
  }
  addEventListener('svc:ready', (event) => expectTypeOf(event).toEqualTypeOf<Event>());
  // @ts-expect-error: only the documented calls can be queued
  window.svc.push(['signup']);
  // @ts-expect-error: signup takes the identifier as a string
  window.svc.push(['signup', 42]);
}

describe('svc.d.ts', () => {
  it('declares window.svc_data, window.svc and the queue as README.md#the-script-tag shows them', () => {
    expectTypeOf(pageCode).toBeFunction();
    expectTypeOf<Window['svc_data']>().toEqualTypeOf<SvcData | null | undefined>();
    expectTypeOf<Window['svc']>().toEqualTypeOf<Svc | SvcCall[] | undefined>();
    expectTypeOf<Svc['signup']>().returns.toEqualTypeOf<Promise<SvcSignupResult>>();
    expectTypeOf<Svc['consent']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<SvcData>().toHaveProperty('customer_id').toEqualTypeOf<string | null>();
  });
});
