import { describe, expect, it } from 'vitest';
import { ApiError, badRequest, conflict, notFound } from '../../src/http/errors.js';
import { orRefused, refusalOf } from '../../src/pages/refusal.js';

// A refused form in plain words beside its field (ingest/README.md#how-to-add-a-dashboard-or-portal-page).

const LABELS = { cookie_duration: 'Cookie duration', url_params: 'URL parameters', url: 'Endpoint URL' };

describe('refusalOf', () => {
  it("puts the API's validation wording in words, beside the field it names", () => {
    expect(refusalOf(badRequest('Invalid cookie_duration: Too small: expected number to be >=1', 'cookie_duration'), LABELS)).toEqual({
      field: 'cookie_duration',
      message: 'Must be at least 1.',
      status: 400,
    });
  });

  it('names a field the form does not label in the message instead', () => {
    expect(refusalOf(badRequest('Invalid name: this parameter is required', 'name'), LABELS)).toEqual({
      field: undefined,
      message: 'name: this is required.',
      status: 400,
    });
  });

  it('puts a part of a labelled field (an item of a list) beside that field', () => {
    const refusal = refusalOf(badRequest('Invalid url_params.1: must be 1–32 characters of a-z, 0-9, _ or -', 'url_params.1'), LABELS);
    expect(refusal).toEqual({ field: 'url_params', message: 'Must be 1–32 characters of a-z, 0-9, _ or -.', status: 400 });
  });

  it("drops the parameter's name that starts a message shown beside it", () => {
    expect(refusalOf(badRequest('url must not point at this machine (localhost)', 'url'), LABELS).message).toBe(
      'Must not point at this machine (localhost).',
    );
    // Elsewhere the message keeps its words.
    expect(refusalOf(badRequest('url must not point at this machine (localhost)', 'url'), {}).message).toBe(
      'Url must not point at this machine (localhost).',
    );
  });

  it('keeps a conflict, with its status, as the sentence the service wrote', () => {
    expect(refusalOf(conflict('A user with the e-mail a@b.example already exists'), LABELS)).toEqual({
      field: undefined,
      message: 'A user with the e-mail a@b.example already exists.',
      status: 409,
    });
  });

  it('throws on what is no refusal: a missing page, a fault, anything but an ApiError', () => {
    for (const err of [notFound('flow', 'flw_x'), new ApiError('service_unavailable', 'down'), new Error('bug')]) {
      expect(() => refusalOf(err, LABELS)).toThrow(err);
    }
  });
});

describe('orRefused', () => {
  it('shows the form again on a refusal, waiting for it, and lets its own fault through', async () => {
    const shown: string[] = [];
    await orRefused(
      async () => {
        throw badRequest('Invalid cookie_duration: Too big: expected number to be <=3650', 'cookie_duration');
      },
      LABELS,
      async (refusal) => {
        await Promise.resolve();
        shown.push(refusal.message);
      },
    );
    expect(shown).toEqual(['Must be at most 3650.']);

    const fault = new Error('the page could not be read');
    await expect(
      orRefused(
        async () => {
          throw badRequest('nope');
        },
        LABELS,
        async () => {
          throw fault;
        },
      ),
    ).rejects.toBe(fault);
    // A change that succeeds shows nothing.
    await orRefused(
      async () => {},
      LABELS,
      () => {
        shown.push('again');
      },
    );
    expect(shown).toHaveLength(1);
  });
});
