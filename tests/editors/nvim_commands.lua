-- Drives editors/neovim/nib.lua in headless Neovim (0.7+) as a user does: opens a file (the
-- FileType autocommand starts `nib serve`), then runs :NibSearch, :NibContext and :NibStatus and
-- writes what they produced (the quickfix list, the two scratch buffers) as JSON.
-- Environment: NIB_BIN, NIB_PLUGIN (the plugin file), NIB_FILE, NIB_SEARCH, NIB_SYMBOL, NIB_OUT.
local harness = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_harness.lua")
local env, finish = harness.env, harness.finish

local function buffer_lines(name)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then return nil end
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

local ok, err = pcall(function()
  vim.cmd("filetype on")
  local nib = dofile(env("NIB_PLUGIN"))
  nib.setup({ cmd = { env("NIB_BIN"), "serve" } })
  vim.cmd("edit " .. vim.fn.fnameescape(env("NIB_FILE")))
  local ready = vim.wait(20000, function()
    for _, c in pairs(vim.lsp.buf_get_clients(0)) do
      if c.name == "nib" and c.server_capabilities and next(c.server_capabilities) then return true end
    end
    return false
  end, 20)
  assert(ready, "the nib client did not start for the buffer")

  vim.cmd("NibSearch " .. env("NIB_SEARCH"))
  assert(vim.wait(20000, function() return #vim.fn.getqflist() > 0 end, 20), ":NibSearch filled no quickfix list")
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  local items = {}
  for _, item in ipairs(qf.items) do
    table.insert(items, { file = vim.fn.bufname(item.bufnr), lnum = item.lnum, text = item.text })
  end

  vim.cmd("wincmd p")
  vim.cmd("NibContext " .. env("NIB_SYMBOL"))
  assert(vim.wait(20000, function() return buffer_lines("nib://context") ~= nil end, 20), ":NibContext opened nothing")

  vim.cmd("NibStatus")
  assert(vim.wait(20000, function() return buffer_lines("nib://status") ~= nil end, 20), ":NibStatus opened nothing")

  finish({
    search = { title = qf.title, items = items },
    context = buffer_lines("nib://context"),
    status = buffer_lines("nib://status"),
  })
end)
if not ok then finish({ error = tostring(err) }) end
