#!/usr/bin/env python3
"""Generate the PMPI wrappers from wrappers/mpi.spec.

Writes, into OUTDIR (default: wrappers/gen):
  <family>.c             one wrapper per function of each spec section
  fortran_<family>.c     the wrappers of those functions' Fortran bindings (mpif.h, use mpi, use mpi_f08)
and into OUTDIR/../regions (wrappers/regions):
  regions.h, regions.c   the region enum and its name/role table (one region per MPI function),
                         which the tracer's own modules (src/) use too: apart from the
                         wrappers, which call into src/, so that no two folders include each other

Every wrapper has the same shape, written once here:
  Enter -> pre hooks -> PMPI_* -> post hooks -> Leave
and falls straight through to PMPI_* when the calling thread does not record.
A polling function (poll-idle:, poll-key:) writes its Enter only once its
result is known: a run of unsuccessful calls is one region (src/polling.h).
A Fortran wrapper either converts its arguments and calls the C wrapper, or
records the region around Open MPI's own Fortran binding (see mpi.spec).
"""
import os
import re
import sys

ROLES = {
    'function': 'OTF2_REGION_ROLE_FUNCTION', 'point2point': 'OTF2_REGION_ROLE_POINT2POINT',
    'barrier': 'OTF2_REGION_ROLE_BARRIER', 'coll_one2all': 'OTF2_REGION_ROLE_COLL_ONE2ALL',
    'coll_all2one': 'OTF2_REGION_ROLE_COLL_ALL2ONE', 'coll_all2all': 'OTF2_REGION_ROLE_COLL_ALL2ALL',
    'coll_other': 'OTF2_REGION_ROLE_COLL_OTHER', 'rma': 'OTF2_REGION_ROLE_RMA',
    'file_io': 'OTF2_REGION_ROLE_FILE_IO', 'file_io_metadata': 'OTF2_REGION_ROLE_FILE_IO_METADATA',
    'atomic': 'OTF2_REGION_ROLE_ATOMIC', 'allocate': 'OTF2_REGION_ROLE_ALLOCATE',
}
# How a function's Fortran bindings are wrapped (see the head of mpi.spec).
FORTRAN_CLASSES = ('convert', 'region', 'manual', 'none')
# C handle type -> the X of PMPI_X_f2c / PMPI_X_c2f.
HANDLES = {'MPI_Comm': 'Comm', 'MPI_Datatype': 'Type', 'MPI_Op': 'Op', 'MPI_Group': 'Group', 'MPI_Info': 'Info',
           'MPI_Request': 'Request', 'MPI_Message': 'Message', 'MPI_Win': 'Win', 'MPI_File': 'File',
           'MPI_Errhandler': 'Errhandler'}
PROTO = re.compile(r'^(?P<ret>[A-Za-z_][\w ]*?\**)\s*(?P<name>MPI_\w+)\((?P<args>.*)\)$')


class SpecError(Exception):
    pass


def arg_names(args, where):
    """Names of the parameters of a prototype's argument list (last identifier of each)."""
    if args.strip() == 'void':
        return [], False
    names, variadic = [], False
    for a in args.split(','):
        a = a.strip()
        if a == '...':
            variadic = True
            continue
        m = re.search(r"(\w+)\s*(\[\s*\d*\s*\])*\s*$", a)
        if not m:
            raise SpecError('%s: cannot find the parameter name in "%s"' % (where, a))
        names.append(m.group(1))
    return names, variadic


def parse(path):
    families, fn = [], None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            where = '%s:%d' % (path, lineno)
            line = line.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            m = re.match(r'^\[(\w+)\s+(\w+)(?:\s+fortran:\s*(\w+))?\]$', line)
            if m:
                if m.group(2) not in ROLES:
                    raise SpecError('%s: unknown role %s' % (where, m.group(2)))
                if m.group(3) and m.group(3) not in FORTRAN_CLASSES:
                    raise SpecError('%s: unknown Fortran class %s' % (where, m.group(3)))
                families.append({'name': m.group(1), 'role': m.group(2), 'fns': [], 'fortran': m.group(3)})
                fn = None
                continue
            if line[0].isspace():
                if fn is None:
                    raise SpecError('%s: attribute before any function' % where)
                body = line.strip()
                if body == 'manual':
                    fn['manual'] = True
                elif body == 'deprecated':
                    fn['deprecated'] = True
                elif body.startswith('role:'):
                    role = body[5:].strip()
                    if role not in ROLES:
                        raise SpecError('%s: unknown role %s' % (where, role))
                    fn['role'] = role
                elif body.startswith('pre:'):
                    fn['pre'].append(body[4:].strip())
                elif body.startswith('post:'):
                    fn['post'].append(body[5:].strip())
                elif body.startswith('fortran:'):
                    cls = body[8:].strip()
                    if cls not in FORTRAN_CLASSES:
                        raise SpecError('%s: unknown Fortran class %s' % (where, cls))
                    fn['fortran'] = cls
                elif body == 'f08: none':
                    fn['f08'] = False
                elif body.startswith('fargs:'):
                    fn['fargs'] = body[6:].strip()
                elif body.startswith('fpost:'):
                    fn['fpost'].append(body[6:].strip())
                elif body.startswith('poll-idle:'):
                    fn['poll_idle'] = body[10:].strip()
                elif body.startswith('poll-key:'):
                    fn['poll_key'] = body[9:].strip()
                else:
                    raise SpecError('%s: unknown attribute "%s"' % (where, body))
                continue
            if not families:
                raise SpecError('%s: function before any [family role] section' % where)
            m = PROTO.match(line.strip())
            if not m:
                raise SpecError('%s: not a prototype: %s' % (where, line))
            names, variadic = arg_names(m.group('args'), where)
            fn = {'ret': m.group('ret').strip(), 'name': m.group('name'), 'args': m.group('args'),
                  'names': names, 'variadic': variadic, 'pre': [], 'post': [], 'manual': False, 'deprecated': False,
                  'role': families[-1]['role'], 'where': where, 'fortran': families[-1]['fortran'],
                  'f08': True, 'fargs': None, 'fpost': [], 'poll_idle': None, 'poll_key': None}
            families[-1]['fns'].append(fn)
    seen = {}
    for fam in families:
        for fn in fam['fns']:
            if (fn['poll_idle'] is None) != (fn['poll_key'] is None):
                raise SpecError('%s: poll-idle: and poll-key: go together' % fn['where'])
            if fn['poll_idle'] is not None and (fn['manual'] or fn['ret'] != 'int'):
                raise SpecError('%s: poll-idle: needs a generated wrapper returning int' % fn['where'])
            if fn['fortran'] is None:
                # A polling function's Fortran calls go through its C wrapper, which collapses them.
                fn['fortran'] = ('manual' if fn['manual'] else
                                 'convert' if fn['pre'] or fn['post'] or fn['poll_idle'] else 'region')
            if fn['fpost'] and fn['fortran'] != 'region':
                raise SpecError('%s: fpost: needs fortran: region' % fn['where'])
            if fn['name'] in seen:
                raise SpecError('%s: %s is already listed at %s' % (fn['where'], fn['name'], seen[fn['name']]))
            seen[fn['name']] = fn['where']
    return families


HEADER = '/* Generated by wrappers/gen-wrappers.py from wrappers/mpi.spec: do not edit. */\n'

# SYNCTRACE_MPI_GROUPS: the function groups, named as Score-P names its MPI
# groups (SCOREP_MPI_ENABLE_GROUPS), plus QUERY for the pure local queries
# (MPI_Wtime, MPI_Wtick) that polling loops call millions of times. Order
# = bit number; src/options.c parses the names from the generated table.
GROUPS = ['CG', 'COLL', 'ENV', 'ERR', 'EXT', 'IO', 'MISC', 'P2P', 'QUERY', 'RMA', 'SPAWN', 'TOPO', 'TYPE',
          'XREQTEST']
SPAWN_FNS = ('MPI_Comm_spawn', 'MPI_Comm_spawn_multiple', 'MPI_Open_port', 'MPI_Close_port', 'MPI_Comm_accept',
             'MPI_Comm_connect', 'MPI_Comm_disconnect', 'MPI_Comm_join', 'MPI_Publish_name', 'MPI_Unpublish_name',
             'MPI_Lookup_name', 'MPI_Comm_get_parent')


def group_of(family, name):
    """The SYNCTRACE_MPI_GROUPS group of one function, from its family and name."""
    if name in ('MPI_Wtime', 'MPI_Wtick'):
        return 'QUERY'
    if 'rrhandler' in name or name.startswith(('MPI_Add_error', 'MPI_Error_')):
        return 'ERR'
    if name in SPAWN_FNS:
        return 'SPAWN'
    if name.startswith(('MPI_Cart_', 'MPI_Graph', 'MPI_Dist_graph_create', 'MPI_Dist_graph_neighbors',
                        'MPI_Topo_test', 'MPI_Dims_create')):
        return 'TOPO'
    if name.startswith(('MPI_Test', 'MPI_Request_get_status', 'MPI_Iprobe', 'MPI_Improbe')):
        return 'XREQTEST'
    if name.startswith('MPI_Grequest'):
        return 'EXT'
    return {'env': 'ENV', 'p2p': 'P2P', 'requests': 'P2P', 'collectives': 'COLL', 'communicators': 'CG',
            'rma': 'RMA', 'io': 'IO', 'datatypes': 'TYPE', 'tool': 'EXT', 'misc': 'MISC',
            'handles': 'MISC'}[family]


def essential(fn):
    """Recorded whatever the groups: its hooks write what the merge and the
    causal index need (messages, requests, collectives, communicators)."""
    return bool(fn['manual'] or fn['pre'] or fn['post'] or fn['fpost'])


def poll_wrapper(fn, call):
    """A polling function (poll-idle:, poll-key:): its Enter waits for the result, so that a run of
    unsuccessful calls with the same arguments is written as one region (src/polling.h)."""
    out = ['    struct st_call call;',
           '    if (!st_poll_begin(&call, ST_REGION_%s))' % fn['name'],
           '        return %s;' % call]
    out += ['    ' + p for p in fn['pre']]
    out.append('    int ret = %s;' % call)
    out.append('    st_call_stamp(&call);')
    out.append('    int st_idle_ = ret == MPI_SUCCESS && (%s);' % fn['poll_idle'])
    out.append('    st_idle_ = st_poll_after(&call, st_idle_, st_idle_ ? %s : 0);' % fn['poll_key'])
    out += ['    ' + p for p in fn['post']]
    out += ['    if (!st_idle_)', '        st_call_end_stamped(&call);', '    return ret;', '}', '']
    return out


def wrapper(fn):
    call = 'P%s(%s)' % (fn['name'], ', '.join(fn['names']))
    out = ['%s %s(%s)' % (fn['ret'], fn['name'], fn['args']), '{']
    if fn['poll_idle'] is not None:
        return '\n'.join(out + poll_wrapper(fn, call))
    if fn['variadic']:
        out.append('    /* The variable part is not forwarded: the MPI standard gives it no meaning. */')
    out += ['    struct st_call call;',
            '    if (!st_call_begin(&call, ST_REGION_%s))' % fn['name'],
            '        return %s;' % call]
    out += ['    ' + p for p in fn['pre']]
    out.append('    %s ret = %s;' % (fn['ret'], call))
    if fn['post']:
        out.append('    st_call_stamp(&call);')
        out += ['    ' + p for p in fn['post']]
        out.append('    st_call_end_stamped(&call);')
    else:
        out.append('    st_call_end(&call);')
    out += ['    return ret;', '}', '']
    if fn['deprecated']:
        out = (['#pragma GCC diagnostic push', '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"'] + out[:-1]
               + ['#pragma GCC diagnostic pop', ''])
    return '\n'.join(out)


def c_params(fn, where):
    """(type, name, is_array) of each C parameter."""
    out = []
    if fn['args'].strip() == 'void':
        return out
    for a in fn['args'].split(','):
        a = a.strip()
        if a == '...':
            continue
        m = re.search(r"(\w+)\s*((?:\[\s*\d*\s*\])*)\s*$", a)
        out.append((re.sub(r'\s+', ' ', a[:m.start()].replace('*', ' * ')).strip().replace('* *', '**'),
                    m.group(1), bool(m.group(2))))
    return out


def fortran_params(fn):
    """The Fortran binding's C-ABI parameters: (declaration type, name), hidden string lengths last.

    Every Fortran argument is passed by reference; a CHARACTER argument adds a hidden length
    (size_t since gfortran 8) after the visible ones, and the subroutine ends with IERROR."""
    if fn['fargs'] is not None:
        if fn['fargs'] == 'void':
            return []
        out = []
        for a in fn['fargs'].split(','):
            m = re.match(r'^(.*?)(\w+)$', a.strip())
            out.append((m.group(1).strip(), m.group(2)))
        return out
    params, hidden = [], []
    for t, n, arr in c_params(fn, fn['where']):
        base = t.replace('const', '').strip()
        if base.startswith('char'):
            params.append(('char *', n))
            hidden.append(('size_t', n + '_len'))
        elif base.startswith('void') or base.endswith('_function *'):
            params.append(('void *', n))
        elif base.split()[0] in ('MPI_Aint', 'MPI_Offset', 'MPI_Count'):
            params.append((base.split()[0] + ' *', n))
        else:
            params.append(('MPI_Fint *', n))
    return params + [('MPI_Fint *', 'ierr')] + hidden


def decl(params):
    return ', '.join('%s%s%s' % (t, '' if t.endswith('*') else ' ', n) for t, n in params) or 'void'


def fortran_names(fn):
    """mpif.h / use mpi spellings: lower case with none, one and two underscores, upper case."""
    low = fn['name'].lower()
    return [low, low + '_', low + '__', fn['name'].upper()]


def alias_lines(impl, names):
    return ['ST_F_ALIAS(%s, %s);' % (impl, n) for n in names]


def fortran_region(fn, pmpi, impl):
    """Record the region around Open MPI's own Fortran binding (PMPI spelling)."""
    params = fortran_params(fn)
    ret = 'double' if fn['ret'] == 'double' else 'void'
    args = ', '.join(n for _, n in params)
    out = ['extern %s %s(%s) __attribute__((weak));' % (ret, pmpi, decl(params)),
           'static %s %s(%s)' % (ret, impl, decl(params)), '{',
           '    if (!%s)' % pmpi, '        st_f_missing("%s");' % pmpi,
           '    struct st_call call;',
           '    int recording = st_call_begin(&call, ST_REGION_%s);' % fn['name']]
    if fn['fpost']:
        # The hooks need the result even when an mpi_f08 caller omitted IERROR.
        out += ['    MPI_Fint ierr_ = MPI_SUCCESS;',
                '    %s(%s);' % (pmpi, ', '.join('&ierr_' if n == 'ierr' else n for _, n in params)),
                '    if (ierr)', '        *ierr = ierr_;',
                '    if (!recording)', '        return;',
                '    int ret = (int)ierr_;', '    st_call_stamp(&call);']
        out += ['    ' + p for p in fn['fpost']]
        out += ['    st_call_end_stamped(&call);', '}', '']
        return out
    if ret == 'double':
        out += ['    double ret = %s(%s);' % (pmpi, args)]
    else:
        out += ['    %s(%s);' % (pmpi, args)]
    out += ['    if (recording)', '        st_call_end(&call);']
    if ret == 'double':
        out.append('    return ret;')
    return out + ['}', '']


def count_param(fn, names):
    for c in ('count', 'incount'):
        if c in names:
            return '(int)*' + c
    raise SpecError('%s: %s: an array of requests or statuses needs a count or incount parameter'
                    % (fn['where'], fn['name']))


def fortran_convert(fn, impl):
    """Convert the Fortran arguments, call the C wrapper MPI_X, convert the results back."""
    cps = c_params(fn, fn['where'])
    names = [n for _, n, _ in cps]
    fparams, first, arrays, fills, cargs, after, release = [], [], [], [], [], [], []
    for t, n, arr in cps:
        base = t.replace('const', '').strip()
        word = base.split()[0]
        if base.startswith('char') or base.endswith('_function *'):
            raise SpecError('%s: %s: %s cannot be converted: use fortran: region or manual'
                            % (fn['where'], fn['name'], n))
        if base.startswith('void'):
            fparams.append(('void *', n))
            cargs.append('st_f_buf(%s)' % n)
        elif word == 'int' and not arr and base == 'int':
            fparams.append(('MPI_Fint *', n))
            cargs.append('(int)*%s' % n)
        elif word == 'int' and n == 'index':
            fparams.append(('MPI_Fint *', n))
            first.append('int c_%s = MPI_UNDEFINED;' % n)
            cargs.append('&c_%s' % n)
            after.append('*%s = st_f_index(c_%s);' % (n, n))
        elif word == 'int' and n == 'array_of_indices':
            fparams.append(('MPI_Fint *', n))
            cargs.append('(int *)%s' % n)
            after.append('st_f_indices((int *)%s, (int)*outcount);' % n)
        elif word == 'int' and n in ('weights', 'sourceweights', 'destweights'):
            fparams.append(('MPI_Fint *', n))
            cargs.append('st_f_weights(%s)' % n)
        elif word == 'int':
            fparams.append(('MPI_Fint *', n))
            cargs.append('(int *)%s' % n)
        elif word == 'MPI_Aint' and arr:
            fparams.append(('MPI_Aint *', n))
            cargs.append(n)
        elif word == 'MPI_Aint' and '*' not in base:
            # INTEGER(KIND=MPI_ADDRESS_KIND), by reference like every Fortran argument
            fparams.append(('MPI_Aint *', n))
            cargs.append('*' + n)
        elif word == 'MPI_Status' and not arr and n == 'status':
            fparams.append(('MPI_Fint *', n))
            first.append('MPI_Status c_%s_;' % n)
            first.append('MPI_Status *c_%s = st_f_status_in(%s, &c_%s_);' % (n, n, n))
            cargs.append('c_%s' % n)
            after.append('st_f_status_out(%s, c_%s);' % (n, n))
        elif word == 'MPI_Status':
            cnt = count_param(fn, names)
            fparams.append(('MPI_Fint *', n))
            arrays.append('MPI_Status small_%s[ST_F_SMALL], *c_%s = small_%s;' % (n, n, n))
            fills.append('st_f_statuses_in(%s, %s, &c_%s) == 0' % (n, cnt, n))
            cargs.append('c_%s' % n)
            after.append('st_f_statuses_out(%s, %s, c_%s);' % (n, cnt, n))
            release.append('st_f_release(c_%s, small_%s);' % (n, n))
        elif word == 'MPI_Request' and arr:
            cnt = count_param(fn, names)
            fparams.append(('MPI_Fint *', n))
            arrays.append('MPI_Request small_%s[ST_F_SMALL], *c_%s = small_%s;' % (n, n, n))
            fills.append('st_f_requests_in(%s, %s, &c_%s) == 0' % (n, cnt, n))
            cargs.append('c_%s' % n)
            after.append('st_f_requests_out(%s, %s, c_%s);' % (n, cnt, n))
            release.append('st_f_release(c_%s, small_%s);' % (n, n))
        elif word == 'MPI_Datatype' and arr:
            # MPI_Alltoallw: one type per peer (per neighbour); no send types with MPI_IN_PLACE.
            out = n.startswith('send')
            cnt = 'st_f_peers(c_comm, %d, %d)' % ('neighbor' in fn['name'].lower(), out)
            if out:
                cnt = '(st_f_buf(sendbuf) == MPI_IN_PLACE ? 0 : %s)' % cnt
            fparams.append(('MPI_Fint *', n))
            arrays.append('MPI_Datatype small_%s[ST_F_SMALL], *c_%s = small_%s;' % (n, n, n))
            fills.append('st_f_types_in(%s, %s, &c_%s) == 0' % (n, cnt, n))
            cargs.append('c_%s' % n)
            release.append('st_f_release(c_%s, small_%s);' % (n, n))
        elif word in HANDLES and not arr and '*' not in base:
            fparams.append(('MPI_Fint *', n))
            first.append('%s c_%s = PMPI_%s_f2c(*%s);' % (word, n, HANDLES[word], n))
            cargs.append('c_%s' % n)
        elif word in HANDLES and not arr:
            fparams.append(('MPI_Fint *', n))
            first.append('%s c_%s = PMPI_%s_f2c(*%s);' % (word, n, HANDLES[word], n))
            cargs.append('&c_%s' % n)
            after.append('*%s = PMPI_%s_c2f(c_%s);' % (n, HANDLES[word], n))
        else:
            raise SpecError('%s: %s: no Fortran conversion for "%s %s%s"'
                            % (fn['where'], fn['name'], t, n, '[]' if arr else ''))
    fparams.append(('MPI_Fint *', 'ierr'))
    out = ['static void %s(%s)' % (impl, decl(fparams)), '{']
    out += ['    ' + line for line in first + arrays]
    call = '%s(%s);' % (fn['name'], ', '.join(cargs))
    if fills:
        # Arrays longer than ST_F_SMALL come from the heap, which may fail.
        out.append('    int ret = MPI_ERR_NO_MEM;')
        out.append('    if (%s)' % ('\n        && '.join(fills)))
        out.append('        ret = ' + call)
    else:
        out.append('    int ret = ' + call)
    if after:
        out.append('    if (ret == MPI_SUCCESS) {')
        out += ['        ' + line for line in after]
        out.append('    }')
    out += ['    ' + line for line in release]
    out.append('    st_f_ret(ierr, ret);')
    return out + ['}', '']


def fortran_wrappers(fn):
    """The Fortran bindings of one function: mpif.h / use mpi spellings and the mpi_f08 one."""
    cls = fn['fortran']
    low = fn['name'].lower()
    if cls == 'none':
        return []
    if cls == 'manual':
        return ['/* %s: hand-written in src/fortran.c */' % fn['name'], '']
    if cls == 'convert':
        impl = 'st_f_' + fn['name']
        out = ['/* %s: converted; the C wrapper records */' % fn['name']] + fortran_convert(fn, impl)
        out += alias_lines(impl, fortran_names(fn) + ([low + '_f08_'] if fn['f08'] else []))
        return out + ['']
    impl = 'st_f_' + fn['name']
    out = ['/* %s: the region around Open MPI\'s Fortran binding */' % fn['name']]
    out += fortran_region(fn, 'p' + low + '_', impl)
    out += alias_lines(impl, fortran_names(fn))
    if fn['f08']:
        out += [''] + fortran_region(fn, 'p' + low + '_f08_', impl + '_f08')
        out += alias_lines(impl + '_f08', [low + '_f08_'])
    return out + ['']


def write(path, text):
    """Write only when changed, so that make does not rebuild what did not change."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def generate(families, outdir):
    """Write every output file, or none when the spec has an error (SpecError)."""
    files = {}
    fns = [fn for fam in families for fn in fam['fns']]
    for fam in families:
        for fn in fam['fns']:
            fn['group'] = group_of(fam['name'], fn['name'])
    h = [HEADER, '#ifndef SYNCTRACE_REGIONS_H', '#define SYNCTRACE_REGIONS_H', '',
         '#include <otf2/otf2.h>', '', 'enum st_region {']
    h += ['    ST_REGION_%s,' % fn['name'] for fn in fns]
    h += ['    ST_REGION_MPI_COUNT', '};', '',
          'struct st_region_info {', '    const char *name;', '    OTF2_RegionRole role;', '};', '',
          'extern const struct st_region_info st_regions[ST_REGION_MPI_COUNT];', '',
          '/* SYNCTRACE_MPI_GROUPS: each function\'s group (bit number), and whether it is',
          ' * recorded whatever the groups (its hooks write what the merge needs). */',
          'enum { %s, ST_MPI_GROUP_COUNT };' % ', '.join('ST_MPI_GROUP_%s' % g for g in GROUPS),
          'extern const char *const st_mpi_group_names[ST_MPI_GROUP_COUNT];',
          'extern const unsigned char st_region_group[ST_REGION_MPI_COUNT];',
          'extern const unsigned char st_region_essential[ST_REGION_MPI_COUNT];', '', '#endif', '']
    files['regions.h'] = '\n'.join(h)
    c = [HEADER, '#include "regions.h"', '',
         'const struct st_region_info st_regions[ST_REGION_MPI_COUNT] = {']
    c += ['    { "%s", %s },' % (fn['name'], ROLES[fn['role']]) for fn in fns]
    c += ['};', '']
    c += ['const char *const st_mpi_group_names[ST_MPI_GROUP_COUNT] = { %s };' % ', '.join('"%s"' % g for g in GROUPS),
          '']
    c += ['const unsigned char st_region_group[ST_REGION_MPI_COUNT] = {']
    c += ['    ST_MPI_GROUP_%s,   /* %s */' % (fn['group'], fn['name']) for fn in fns]
    c += ['};', '', 'const unsigned char st_region_essential[ST_REGION_MPI_COUNT] = {']
    c += ['    %d,   /* %s */' % (essential(fn), fn['name']) for fn in fns]
    c += ['};', '']
    files['regions.c'] = '\n'.join(c)
    for fam in families:
        body = [HEADER, '#include "tracer.h"', '#include "hooks.h"', '#include "regions.h"', '']
        for fn in fam['fns']:
            if fn['manual']:
                body.append('/* %s: hand-written in src/ */\n' % fn['name'])
            else:
                body.append(wrapper(fn))
        files[fam['name'] + '.c'] = '\n'.join(body)
        fbody = []
        for fn in fam['fns']:
            fbody += fortran_wrappers(fn)
        if fbody:
            files['fortran_' + fam['name'] + '.c'] = '\n'.join(
                [HEADER, '#include "tracer.h"', '#include "hooks.h"', '#include "regions.h"', '#include "fortran.h"',
                 ''] + fbody)
    regions = os.path.join(os.path.dirname(os.path.abspath(outdir)), 'regions')
    os.makedirs(regions, exist_ok=True)
    for name, text in files.items():
        write(os.path.join(regions if name.startswith('regions.') else outdir, name), text)
    return [fam['name'] for fam in families]


def main(argv):
    spec = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), 'mpi.spec')
    outdir = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(__file__), 'gen')
    try:
        families = parse(spec)
    except (SpecError, OSError) as e:
        sys.stderr.write('gen-wrappers: %s\n' % e)
        return 1
    os.makedirs(outdir, exist_ok=True)
    try:
        generate(families, outdir)
    except SpecError as e:
        sys.stderr.write('gen-wrappers: %s\n' % e)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
