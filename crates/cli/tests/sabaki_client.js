// Sabaki's GTP client (`@sabaki/gtp`, from the node modules scripts/setup.sh installs) runs
// `analyze`, `lz-analyze` and `kata-analyze` against `hane gtp` on a tiny 5x5 net, as Sabaki
// does: it streams the report lines of the analysis, then stops it by sending the next
// command. Also `kata-set-rules japanese` with the ttakji net.
//
// Usage: node sabaki_client.js HANE_BINARY MODEL_FOR_TTAKJI_5x5
// Exits non-zero with a message on the first failed check.

const {Controller} = require('@sabaki/gtp')

function check(cond, message) {
  if (!cond) {
    console.error(`sabaki client: ${message}`)
    process.exit(1)
  }
}

// One analysis: the report lines until `wanted` of them have come, then the next command.
async function analyse(engine, name, args, wanted) {
  const lines = []
  let stopped = null
  const response = engine.sendCommand({name, args}, evt => {
    if (evt.line.startsWith('info')) lines.push(evt.line)
    if (lines.length >= wanted && !stopped) stopped = engine.sendCommand({name: 'name'})
  })
  const r = await response
  check(!r.error, `${name}: ${r.content}`)
  const next = await stopped
  check(next && !next.error && next.content === 'hane', `the command that stopped ${name}: ${JSON.stringify(next)}`)
  return lines
}

// The fields of one move of a report line (`info move C3 visits 5 ... pv C3 D4`).
function moves(line) {
  return line.split(/ ?info /).filter(s => s).map(s => {
    const words = s.split(' ')
    const m = {}
    for (let i = 0; i < words.length; i += 2) {
      if (words[i] === 'pv' || words[i] === 'ownership') break
      m[words[i]] = words[i + 1]
    }
    return m
  })
}

async function main() {
  const [hane, model] = process.argv.slice(2)
  const engine = new Controller(hane, ['gtp', '--rules', 'ttakji,size=5', '--model', model, '--visits', '16'])
  engine.start()
  for (const [name, args] of [['boardsize', ['5']], ['clear_board', []], ['komi', ['7']], ['play', ['B', 'C3']]]) {
    const r = await engine.sendCommand({name, args})
    check(!r.error, `${name}: ${r.content}`)
  }
  const lz = await analyse(engine, 'analyze', ['W', '5'], 2)
  for (const m of moves(lz[0])) {
    check(/^[A-E][1-5]$|^pass$/.test(m.move) && +m.visits >= 0 && Number.isInteger(+m.winrate), `lz: ${lz[0]}`)
  }
  const kata = await analyse(engine, 'kata-analyze', ['W', '5', 'ownership', 'true'], 2)
  const own = kata[0].split(' ownership ')[1].split(' ').map(Number)
  check(own.length === 25 && own.every(x => x >= -1 && x <= 1), `kata ownership: ${kata[0]}`)
  for (const m of moves(kata[0])) {
    check(+m.winrate >= 0 && +m.winrate <= 1 && 'scoreLead' in m, `kata: ${kata[0]}`)
  }
  const rules = await engine.sendCommand({name: 'kata-set-rules', args: ['japanese']})
  check(!rules.error, `kata-set-rules japanese with a ttakji net: ${rules.content}`)
  const japanese = await analyse(engine, 'kata-analyze', ['B', '5'], 1)
  check(moves(japanese[0]).length > 0, `kata-analyze under Japanese rules: ${japanese[0]}`)
  await engine.sendCommand({name: 'quit'})
  await engine.stop()
  console.log(`sabaki client: ${lz.length + kata.length + japanese.length} report lines checked`)
}

main().catch(e => check(false, e.stack))
