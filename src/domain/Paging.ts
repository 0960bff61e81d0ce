/**
 * Paging, the one idea every list shares: which page is asked for, and a
 * page of results with the total over all pages. Pages count from 1.
 */

/** Which page of a list is asked for. */
export interface PageRequest {
  readonly page: number
  readonly perPage: number
}

/** A page of a list: its results, the page it is, and how many match over all pages. */
export interface Page<A> {
  readonly results: ReadonlyArray<A>
  readonly page: number
  readonly perPage: number
  readonly total: number
}

/** The rows a page covers, as LIMIT and OFFSET. */
export const pageWindow = (request: PageRequest): { readonly limit: number; readonly offset: number } => ({
  limit: request.perPage,
  offset: (request.page - 1) * request.perPage
})

/** The page `request` asks for, with its results and total. */
export const pageOf = <A>(request: PageRequest, results: ReadonlyArray<A>, total: number): Page<A> => ({
  results,
  page: request.page,
  perPage: request.perPage,
  total
})

/** The page of `items` (all of them, already in order) that `request` asks for. */
export const slicePage = <A>(request: PageRequest, items: ReadonlyArray<A>): Page<A> => {
  const { limit, offset } = pageWindow(request)
  return pageOf(request, items.slice(offset, offset + limit), items.length)
}
