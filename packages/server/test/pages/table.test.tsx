/**
 * The pages' one data table: its markup, rendered without any route, and that any cell text stays text.
 */
import { fc, test } from '@fast-check/vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect } from 'vitest';
import { DataTable } from '../../src/pages/table.js';

interface Item {
  readonly id: string;
  readonly name: string;
}

const ITEMS: readonly Item[] = [
  { id: 'a1', name: 'alice' },
  { id: 'b2', name: 'bob' },
];

function render(rows: readonly Item[], extra: { readonly empty?: string; readonly scrollLabel?: string; readonly className?: string } = {}): string {
  return renderToStaticMarkup(
    <DataTable
      columns={['Name', 'ID']}
      rows={rows}
      rowKey={(i) => i.id}
      rowId={(i) => `item-${i.id}`}
      row={(i) => (
        <>
          <td>{i.name}</td>
          <td className="mono">{i.id}</td>
        </>
      )}
      {...extra}
    />,
  );
}

/** Text as a browser reads it back from markup (entities decoded). */
function decode(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#x27;', "'").replaceAll('&amp;', '&');
}

describe('DataTable', () => {
  test('renders a header cell with scope=col per column, then one row per item in order', () => {
    const html = render(ITEMS, { className: 'admin-table' });
    expect(html).toBe(
      '<div class="table-wrap"><table class="admin-table">' +
        '<thead><tr><th scope="col">Name</th><th scope="col">ID</th></tr></thead>' +
        '<tbody>' +
        '<tr id="item-a1"><td>alice</td><td class="mono">a1</td></tr>' +
        '<tr id="item-b2"><td>bob</td><td class="mono">b2</td></tr>' +
        '</tbody></table></div>',
    );
  });

  test('a scroll label makes the wrapper a focusable, labelled region', () => {
    const html = render(ITEMS, { scrollLabel: 'Items table' });
    expect(html.startsWith('<div class="table-wrap" tabindex="0" role="region" aria-label="Items table"><table>')).toBe(true);
    expect(render(ITEMS)).not.toContain('role="region"');
  });

  test('shows the empty sentence instead of the table when there are no rows', () => {
    expect(render([], { empty: 'No items yet.' })).toBe('<p class="muted">No items yet.</p>');
    // with rows, the sentence is not shown
    expect(render(ITEMS, { empty: 'No items yet.' })).not.toContain('No items yet.');
  });

  test('without an empty sentence, no rows is a table with headings and an empty body', () => {
    expect(render([])).toBe('<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">ID</th></tr></thead><tbody></tbody></table></div>');
  });

  test('without rowId, rows carry no id', () => {
    const html = renderToStaticMarkup(<DataTable columns={['Name']} rows={ITEMS} rowKey={(i) => i.id} row={(i) => <td>{i.name}</td>} />);
    expect(html).toContain('<tbody><tr><td>alice</td></tr><tr><td>bob</td></tr></tbody>');
  });

  // Hostile text in every slot the table fills: headings, cells, row ids, labels, the empty sentence.
  test.prop([
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constantFrom('<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "' onmouseover='x", '</td></tr></tbody></table><script>x</script>', '&amp;<>"\''),
  ])('renders any text inert (React escapes it)', (random, hostile) => {
    const value = `${hostile}${random}`;
    const rows: readonly Item[] = [
      { id: `1${value}`, name: value },
      { id: `2${value}`, name: value },
    ];
    const html = renderToStaticMarkup(
      <DataTable columns={[value, 'ID']} rows={rows} rowKey={(i) => i.id} rowId={(i) => i.id} row={(i) => <><td>{i.name}</td><td>{i.id}</td></>} scrollLabel={value} className={value} />,
    );
    // outside attribute values (which React quotes and escapes) no tag or handler appears, and the structure holds
    const markup = html.replace(/"[^"]*"/g, '""');
    expect(markup).not.toContain('<script>');
    expect(markup).not.toContain('<img');
    for (const tag of markup.match(/<[^>]*>/g) ?? []) expect(tag).not.toMatch(/ on[a-z]+=/);
    expect(markup.match(/<tr/g)?.length).toBe(3);
    expect(markup.match(/<td>/g)?.length).toBe(4);
    expect(markup.match(/<th scope="">/g)?.length).toBe(2);
    expect(markup.match(/<\/table>/g)?.length).toBe(1);
    // the text reads back as the value itself: in the heading, the cells and the attributes
    const text = decode(html);
    expect(text).toContain(`<th scope="col">${value}</th>`);
    expect(text).toContain(`<td>${value}</td>`);
    expect(text).toContain(`aria-label="${value}"`);
    const empty = renderToStaticMarkup(<DataTable columns={['x']} rows={[]} rowKey={String} row={() => <td />} empty={value} />);
    expect(decode(empty)).toBe(`<p class="muted">${value}</p>`);
  });
});
