-- nib for Neovim (0.7+). Put this file on your runtimepath and `require("nib")`:
--  * starts `nib serve` for C, C++, Python, JavaScript, TypeScript, Go, Rust and Java buffers
--    inside a git repository (definition, references, rename, hierarchies... from the index);
--  * :NibSearch {query}    nib/search (the auto route), the hits in the quickfix list;
--  * :NibContext [text]    nib/context for the text, the selected lines (with a range) or the
--                          word under the cursor: one identifier is asked as a symbol, anything
--                          else as an intent; the bundle opens in a scratch buffer;
--  * :NibStatus            nib/status: the index's version, commit, freshness and views, in a
--                          scratch buffer.
-- `require("nib").setup({ cmd = { "/path/to/nib", "serve" } })` names another nib.
local M = { cmd = { "nib", "serve" } }

local filetypes = { "c", "cpp", "python", "javascript", "javascriptreact", "typescript", "typescriptreact",
                    "go", "rust", "java" }

function M.setup(opts)
  if opts and opts.cmd then M.cmd = opts.cmd end
end

function M.attach(bufnr)
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == "" then return end
  local git = vim.fn.finddir(".git", vim.fn.fnamemodify(file, ":p:h") .. ";")
  if git == "" then git = vim.fn.findfile(".git", vim.fn.fnamemodify(file, ":p:h") .. ";") end
  if git == "" then return end
  local root = vim.fn.fnamemodify(git, ":p:h:h")
  local id = vim.lsp.start_client({ name = "nib", cmd = M.cmd, root_dir = root })
  if id then vim.lsp.buf_attach_client(bufnr, id) end
end

-- The nib client of the current buffer, else any running one.
local function client()
  for _, c in pairs(vim.lsp.buf_get_clients(0)) do
    if c.name == "nib" then return c end
  end
  for _, c in pairs(vim.lsp.get_active_clients()) do
    if c.name == "nib" then return c end
  end
  vim.notify("nib: no nib server is running (open a source file inside a git repository)", vim.log.levels.ERROR)
  return nil
end

-- Sends `method` and calls `done(result)`; an error is reported, not passed on.
local function ask(method, params, done)
  local c = client()
  if not c then return end
  c.request(method, params, function(err, result)
    if err then
      vim.notify("nib: " .. method .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    done(result, c)
  end, 0)
end

-- A scratch buffer named `name` in a split, holding `lines` (replaced when it exists).
local function scratch(name, lines, filetype)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.api.nvim_buf_set_option(buf, "modifiable", true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, "modifiable", false)
  if filetype then vim.api.nvim_buf_set_option(buf, "filetype", filetype) end
  if vim.fn.bufwinnr(buf) == -1 then vim.cmd("split | buffer " .. buf) end
  return buf
end

function M.search(query)
  ask("nib/search", { query = query, k = 200 }, function(result, c)
    local items = {}
    for _, hit in ipairs(result.hits or {}) do
      local snippet = (hit.snippet or ""):gsub("\n.*", "")
      local label = hit.name and ((hit.kind or "") .. " " .. hit.name .. ": ") or ""
      table.insert(items, {
        filename = c.config.root_dir .. "/" .. hit.path,
        lnum = hit.range.start.line + 1,
        col = hit.range.start.character + 1,
        text = label .. snippet,
      })
    end
    local title = "nib search (" .. (result.route or "?") .. "): " .. query
    if result.truncated then title = title .. " (more hits exist)" end
    vim.fn.setqflist({}, " ", { title = title, items = items })
    for _, note in ipairs(result.notes or {}) do vim.notify("nib: " .. note) end
    if #items > 0 then vim.cmd("copen") else vim.notify("nib: no hits for " .. query) end
  end)
end

function M.context(text)
  local params = { budgetTokens = 4000 }
  if text:match("^[%a_][%w_]*$") then params.symbols = { text } else params.intent = text end
  ask("nib/context", params, function(result)
    scratch("nib://context", vim.split(result.text or "", "\n", { plain = true }), "markdown")
  end)
end

function M.status()
  ask("nib/status", vim.empty_dict(), function(result)
    local m, f = result.manifest or {}, result.freshness or {}
    local lines = {
      "root        " .. (result.root or "?"),
      "version     " .. (m.version or "?"),
      "commit      " .. (m.sourceCommit or "?") .. ((m.dirty == true) and " + uncommitted changes" or ""),
      "fresh       " .. (f.fresh and "yes" or "no: run `nib index` to catch up"),
    }
    if f.overlaid then table.insert(lines, "overlaid    the worktree's changes are laid over the index") end
    for _, v in ipairs(result.views or {}) do
      table.insert(lines, string.format("view        %-10s %s%s", v.name, v.status, v.error and ("  " .. v.error) or ""))
    end
    for _, path in ipairs(f.changedFiles or {}) do table.insert(lines, "changed     " .. path) end
    for _, path in ipairs(f.deletedFiles or {}) do table.insert(lines, "deleted     " .. path) end
    scratch("nib://status", lines)
  end)
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = filetypes,
  callback = function(args) M.attach(args.buf) end,
})

vim.api.nvim_create_user_command("NibSearch", function(args) M.search(args.args) end,
  { nargs = "+", desc = "nib: search the repository (quickfix list)" })
vim.api.nvim_create_user_command("NibContext", function(args)
  local text = args.args
  if text == "" and args.range > 0 then
    text = table.concat(vim.api.nvim_buf_get_lines(0, args.line1 - 1, args.line2, false), "\n")
  end
  if text == "" then text = vim.fn.expand("<cword>") end
  if text == "" then
    vim.notify("nib: nothing to ask context for", vim.log.levels.ERROR)
    return
  end
  M.context(text)
end, { nargs = "*", range = true, desc = "nib: a context bundle for a symbol, the selection or words" })
vim.api.nvim_create_user_command("NibStatus", function() M.status() end, { desc = "nib: the index and its freshness" })

return M
