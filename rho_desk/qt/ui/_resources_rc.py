# Resource object code (Python 3)
# Created by: object code
# Created by: The Resource Compiler for Qt version 6.11.3
# WARNING! All changes made in this file will be lost!

from PySide6 import QtCore

qt_resource_data = b"\
\x00\x00\x1b\x07\
/\
* Base layout an\
d colours. @name\
@ placeholders a\
re filled from t\
he theme (rho_de\
sk/qt/theme.py).\
 */\x0aQMainWindow,\
 QDialog { backg\
round: @window@;\
 }\x0aQWidget { col\
or: @text@; }\x0aQT\
oolTip { color: \
@text@; backgrou\
nd: @base@; bord\
er: 1px solid @b\
order@; padding:\
 4px 6px; }\x0aQSpl\
itter::handle { \
background: @bor\
der@; }\x0aQSplitte\
r::handle:horizo\
ntal { width: 1p\
x; }\x0aQSplitter::\
handle:vertical \
{ height: 1px; }\
\x0a\x0aQLineEdit, QCo\
mboBox, QPlainTe\
xtEdit, QTextBro\
wser, QAbstractS\
pinBox {\x0a    bac\
kground: @base@;\
 border: 1px sol\
id @border@; bor\
der-radius: 6px;\
 padding: 4px 6p\
x;\x0a    selection\
-background-colo\
r: @accent@; sel\
ection-color: @o\
n_accent@;\x0a}\x0aQLi\
neEdit:focus, QC\
omboBox:focus, Q\
PlainTextEdit:fo\
cus, QTextBrowse\
r:focus, QAbstra\
ctSpinBox:focus \
{ border-color: \
@accent@; }\x0aQTex\
tBrowser { paddi\
ng: 8px 10px; }\x0a\
/* Once a combo \
or spin box has \
a styled frame, \
Qt draws its arr\
ows only from th\
ese rules: the\x0a \
  arrow images a\
re per theme (re\
sources/styles/a\
rrow-*-<theme>.s\
vg, in the theme\
's muted colour)\
. */\x0aQComboBox {\
 padding-right: \
18px; }\x0aQComboBo\
x::drop-down { s\
ubcontrol-origin\
: padding; subco\
ntrol-position: \
center right; bo\
rder: none; widt\
h: 18px; }\x0aQComb\
oBox::down-arrow\
 { image: url(:/\
styles/arrow-dow\
n-@name@.svg); w\
idth: 12px; heig\
ht: 12px; }\x0aQCom\
boBox QAbstractI\
temView { backgr\
ound: @base@; bo\
rder: 1px solid \
@border@; select\
ion-background-c\
olor: @accent_so\
ft@;\x0a           \
                \
   selection-col\
or: @text@; outl\
ine: 0; }\x0aQAbstr\
actSpinBox { pad\
ding-right: 24px\
; }\x0aQAbstractSpi\
nBox::up-button,\
 QAbstractSpinBo\
x::down-button {\
\x0a    subcontrol-\
origin: border; \
width: 20px; bor\
der: none; borde\
r-left: 1px soli\
d @border@; back\
ground: transpar\
ent;\x0a}\x0aQAbstract\
SpinBox::up-butt\
on { subcontrol-\
position: top ri\
ght; border-top-\
right-radius: 6p\
x; }\x0aQAbstractSp\
inBox::down-butt\
on { subcontrol-\
position: bottom\
 right; border-b\
ottom-right-radi\
us: 6px; }\x0aQAbst\
ractSpinBox::up-\
button:hover, QA\
bstractSpinBox::\
down-button:hove\
r { background: \
@hover@; }\x0aQAbst\
ractSpinBox::up-\
arrow { image: u\
rl(:/styles/arro\
w-up-@name@.svg)\
; width: 10px; h\
eight: 10px; }\x0aQ\
AbstractSpinBox:\
:down-arrow { im\
age: url(:/style\
s/arrow-down-@na\
me@.svg); width:\
 10px; height: 1\
0px; }\x0aQAbstract\
SpinBox::up-arro\
w:disabled, QAbs\
tractSpinBox::up\
-arrow:off,\x0aQAbs\
tractSpinBox::do\
wn-arrow:disable\
d, QAbstractSpin\
Box::down-arrow:\
off { image: non\
e; }\x0a\x0aQPushButto\
n, QToolButton {\
\x0a    background:\
 @base@; border:\
 1px solid @bord\
er@; border-radi\
us: 6px; padding\
: 4px 10px;\x0a}\x0aQT\
oolButton { padd\
ing: 3px 6px; }\x0a\
QPushButton:hove\
r, QToolButton:h\
over { backgroun\
d: @hover@; }\x0aQP\
ushButton:presse\
d, QToolButton:p\
ressed, QToolBut\
ton:checked { ba\
ckground: @accen\
t_soft@; border-\
color: @accent@;\
 }\x0aQPushButton:d\
isabled, QToolBu\
tton:disabled { \
color: @muted@; \
}\x0a/* Keyboard fo\
cus is always vi\
sible: an accent\
 border on butto\
ns, an accent ri\
ng on indicators\
,\x0a   an accent f\
rame on item vie\
ws (their 1px fr\
ame is transpare\
nt until then, s\
o nothing moves)\
. */\x0aQPushButton\
:focus, QToolBut\
ton:focus { bord\
er-color: @accen\
t@; }\x0a\x0a/* Check \
boxes: the style\
's own indicator\
 nearly vanishes\
 on the dark the\
me's base colour\
, so\x0a   both the\
mes draw it here\
, in the muted t\
ext colour, and \
fill it with the\
 accent when che\
cked. */\x0aQCheckB\
ox::indicator, Q\
GroupBox::indica\
tor, QAbstractIt\
emView::indicato\
r {\x0a    width: 1\
4px; height: 14p\
x; border: 1px s\
olid @muted@; bo\
rder-radius: 3px\
; background: @b\
ase@;\x0a}\x0aQCheckBo\
x::indicator:hov\
er, QAbstractIte\
mView::indicator\
:hover { border-\
color: @accent@;\
 }\x0aQCheckBox::in\
dicator:checked,\
 QGroupBox::indi\
cator:checked, Q\
AbstractItemView\
::indicator:chec\
ked {\x0a    backgr\
ound: @accent@; \
border-color: @a\
ccent@; image: u\
rl(:/styles/chec\
k-@name@.svg);\x0a}\
\x0aQCheckBox::indi\
cator:indetermin\
ate, QAbstractIt\
emView::indicato\
r:indeterminate \
{\x0a    background\
: @accent_soft@;\
 border-color: @\
accent@;\x0a}\x0aQChec\
kBox::indicator:\
disabled, QAbstr\
actItemView::ind\
icator:disabled \
{ border-color: \
@border@; backgr\
ound: @alt@; }\x0a/\
* The focus ring\
 on the indicato\
r: a state after\
 the subcontrol \
(\x22:focus::indica\
tor\x22 framed the\x0a\
   whole box, fo\
cused or not, li\
ke a text field)\
. */\x0aQCheckBox::\
indicator:focus,\
 QGroupBox::indi\
cator:focus { bo\
rder: 2px solid \
@accent@; }\x0a/* D\
ialog buttons ar\
e words, like ev\
ery other button\
: the style's st\
ock glyphs (a bl\
ack \xe2\x9c\x95 on\x0a   Cl\
ose) ignore the \
theme. */\x0aQDialo\
gButtonBox { dia\
logbuttonbox-but\
tons-have-icons:\
 0; }\x0aQToolButto\
n[flat=\x22true\x22], \
QToolButton:flat\
 { border: none;\
 background: tra\
nsparent; }\x0aQToo\
lButton[flat=\x22tr\
ue\x22]:hover { bac\
kground: @hover@\
; }\x0a\x0aQTabWidget:\
:pane { border: \
none; border-top\
: 1px solid @bor\
der@; }\x0aQTabBar:\
:tab { backgroun\
d: transparent; \
padding: 7px 14p\
x; margin-right:\
 2px;\x0a          \
     border: 1px\
 solid transpare\
nt; border-botto\
m: 2px solid tra\
nsparent; color:\
 @muted@; }\x0aQTab\
Bar::tab:selecte\
d { color: @text\
@; border-bottom\
: 2px solid @acc\
ent@; }\x0aQTabBar:\
:tab:hover { col\
or: @text@; }\x0a/*\
 A tab bar with \
keyboard focus f\
rames and shades\
 its current tab\
, like a focused\
 button (the\x0a   \
style's own dott\
ed frame round t\
he tab's text wa\
s all there was)\
; the frame is t\
here,\x0a   transpa\
rent, on every t\
ab, so nothing m\
oves. */\x0aQTabBar\
::tab:focus { bo\
rder-color: @acc\
ent@; background\
: @accent_soft@;\
 color: @text@; \
}\x0a\x0aQTreeView, QL\
istView, QTableV\
iew {\x0a    backgr\
ound: @base@; al\
ternate-backgrou\
nd-color: @alt@;\
 border: 1px sol\
id transparent;\x0a\
    selection-ba\
ckground-color: \
@accent_soft@; s\
election-color: \
@text@; outline:\
 0;\x0a}\x0aQTreeView:\
focus, QListView\
:focus, QTableVi\
ew:focus { borde\
r-color: @accent\
@; }\x0aQHeaderView\
::section { back\
ground: @alt@; c\
olor: @muted@; b\
order: none; bor\
der-bottom: 1px \
solid @border@;\x0a\
                \
       padding: \
4px 6px; font-we\
ight: 600; }\x0aQTr\
eeView::item { p\
adding: 3px 2px;\
 }\x0a\x0aQMenuBar { b\
ackground: @wind\
ow@; border-bott\
om: 1px solid @b\
order@; }\x0aQMenuB\
ar::item { paddi\
ng: 4px 10px; ba\
ckground: transp\
arent; }\x0aQMenuBa\
r::item:selected\
 { background: @\
hover@; border-r\
adius: 4px; }\x0aQM\
enu { background\
: @base@; border\
: 1px solid @bor\
der@; padding: 4\
px; }\x0aQMenu::ite\
m { padding: 5px\
 24px 5px 22px; \
border-radius: 4\
px; }\x0aQMenu::ite\
m:selected { bac\
kground: @accent\
_soft@; color: @\
text@; }\x0aQMenu::\
item:disabled { \
color: @muted@; \
}\x0aQMenu::separat\
or { height: 1px\
; background: @b\
order@; margin: \
4px 8px; }\x0aQStat\
usBar { backgrou\
nd: @window@; bo\
rder-top: 1px so\
lid @border@; co\
lor: @muted@; }\x0a\
QStatusBar QLabe\
l { color: @mute\
d@; padding: 0 6\
px; }\x0a\x0aQScrollBa\
r:vertical { bac\
kground: transpa\
rent; width: 11p\
x; margin: 0; }\x0a\
QScrollBar::hand\
le:vertical { ba\
ckground: @scrol\
l@; border-radiu\
s: 4px; min-heig\
ht: 28px; margin\
: 2px; }\x0aQScroll\
Bar:horizontal {\
 background: tra\
nsparent; height\
: 11px; margin: \
0; }\x0aQScrollBar:\
:handle:horizont\
al { background:\
 @scroll@; borde\
r-radius: 4px; m\
in-width: 28px; \
margin: 2px; }\x0aQ\
ScrollBar::add-l\
ine, QScrollBar:\
:sub-line { widt\
h: 0; height: 0;\
 }\x0aQScrollBar::a\
dd-page, QScroll\
Bar::sub-page { \
background: tran\
sparent; }\x0aQPush\
Button:checked {\
 background: @ac\
cent_soft@; bord\
er-color: @accen\
t@; color: @acce\
nt@; }\x0a#MessageL\
ist, #DetailBrow\
ser { border: no\
ne; }\x0a\
\x00\x00\x00\xda\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22#ffffff\x22 s\
troke-width=\x223.2\
\x22 stroke-linecap\
=\x22round\x22 stroke-\
linejoin=\x22round\x22\
><path d=\x22M5 12.\
5l4.5 4.5L19 7.5\
\x22/></svg>\
\x00\x00\x00\xd1\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22#9aa3ad\x22 s\
troke-width=\x222.4\
\x22 stroke-linecap\
=\x22round\x22 stroke-\
linejoin=\x22round\x22\
><path d=\x22M6 9l6\
 6 6-6\x22/></svg>\x0a\
\
\x00\x00\x00\xd1\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22#656d76\x22 s\
troke-width=\x222.4\
\x22 stroke-linecap\
=\x22round\x22 stroke-\
linejoin=\x22round\x22\
><path d=\x22M6 9l6\
 6 6-6\x22/></svg>\x0a\
\
\x00\x00\x00\xd2\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22#656d76\x22 s\
troke-width=\x222.4\
\x22 stroke-linecap\
=\x22round\x22 stroke-\
linejoin=\x22round\x22\
><path d=\x22M6 15l\
6-6 6 6\x22/></svg>\
\x0a\
\x00\x00\x07W\
/\
* Panels of the \
main window: bro\
wser, headers, b\
anners, notifica\
tion bar, find b\
ar. */\x0a#BrowserP\
anel { backgroun\
d: @window@; }\x0a#\
BrowserPanel QLi\
stView { backgro\
und: @window@; }\
\x0a#PanelHeader { \
background: @win\
dow@; border-bot\
tom: 1px solid @\
border@; }\x0a#Pane\
lTitle { font-si\
ze: 13pt; font-w\
eight: 600; }\x0a#M\
utedLabel, QLabe\
l[muted=\x22true\x22] \
{ color: @muted@\
; }\x0a#SectionTitl\
e { font-weight:\
 600; color: @mu\
ted@; }\x0a\x0a#DemoBa\
nner { backgroun\
d: @accent_soft@\
; border-bottom:\
 1px solid @acce\
nt@; }\x0a#DemoBann\
er QLabel { colo\
r: @text@; }\x0a#Li\
braryNotice { ba\
ckground: @warni\
ng_soft@; border\
-bottom: 1px sol\
id @border@; }\x0a\x0a\
#NotificationBar\
 { background: @\
base@; border-to\
p: 1px solid @bo\
rder@; }\x0a#Notifi\
cationBar[level=\
\x22info\x22] { backgr\
ound: @accent_so\
ft@; }\x0a#Notifica\
tionBar[level=\x22w\
arning\x22] { backg\
round: @warning_\
soft@; }\x0a#Notifi\
cationBar[level=\
\x22error\x22], #Notif\
icationBar[level\
=\x22bug\x22] { backgr\
ound: @danger_so\
ft@; }\x0a#Notifica\
tionIcon { font-\
size: 14pt; }\x0a#N\
otificationDetai\
ls { font-family\
: \x22DejaVu Sans M\
ono\x22; font-size:\
 9pt; }\x0a\x0a#FindBa\
r { background: \
@alt@; border-to\
p: 1px solid @bo\
rder@; }\x0a#Revisi\
onBar { backgrou\
nd: @window@; bo\
rder-bottom: 1px\
 solid @border@;\
 }\x0a#DetailHeader\
 { background: @\
base@; border-bo\
ttom: 1px solid \
@border@; }\x0a#Emp\
tyState QLabel {\
 color: @muted@;\
 }\x0a#EmptyTitle {\
 font-size: 15pt\
; font-weight: 6\
00; color: @text\
@; }\x0a#StatCard {\
 background: @ba\
se@; border: 1px\
 solid @border@;\
 border-radius: \
8px; }\x0a#StatValu\
e { font-size: 1\
5pt; font-weight\
: 600; }\x0a#StatCa\
ption { color: @\
muted@; }\x0a#Badge\
 { background: @\
accent_soft@; co\
lor: @accent@; b\
order-radius: 8p\
x; padding: 1px \
7px; font-size: \
8.5pt; font-weig\
ht: 600; }\x0a#Badg\
e[tone=\x22warning\x22\
] { background: \
@warning_soft@; \
color: @warning@\
; }\x0a#Badge[tone=\
\x22danger\x22] { back\
ground: @danger_\
soft@; color: @d\
anger@; }\x0a#Badge\
[tone=\x22success\x22]\
 { background: @\
success_soft@; c\
olor: @success@;\
 }\x0a#DiffSummary \
{ padding: 6px 8\
px; }\x0a\
\x00\x00\x00\xd2\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22#9aa3ad\x22 s\
troke-width=\x222.4\
\x22 stroke-linecap\
=\x22round\x22 stroke-\
linejoin=\x22round\x22\
><path d=\x22M6 15l\
6-6 6 6\x22/></svg>\
\x0a\
\x00\x00\x00\xda\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22#0d1020\x22 s\
troke-width=\x223.2\
\x22 stroke-linecap\
=\x22round\x22 stroke-\
linejoin=\x22round\x22\
><path d=\x22M5 12.\
5l4.5 4.5L19 7.5\
\x22/></svg>\
\x00\x00\x00\xfb\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x2212\x22 cy=\x2212\x22 r=\
\x229\x22/><path d=\x22M9\
 9l6 6M15 9l-6 6\
\x22/></svg>\x0a\
\x00\x00\x01\x03\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
7 4v10M2 9h10\x22/>\
<path d=\x22M14 18h\
8\x22/><path d=\x22M17\
 3l-8 18\x22/></svg\
>\x0a\
\x00\x00\x01=\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
9 18h6\x22/><path d\
=\x22M10 21h4\x22/><pa\
th d=\x22M12 3a6 6 \
0 0 0-3.5 10.9c.\
6.5 1 1.2 1 2.1h\
5c0-.9.4-1.6 1-2\
.1A6 6 0 0 0 12 \
3z\x22/></svg>\x0a\
\x00\x00\x01\x14\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
3 6a1 1 0 0 1 1-\
1h5l2 2h9a1 1 0 \
0 1 1 1v10a1 1 0\
 0 1-1 1H4a1 1 0\
 0 1-1-1z\x22/></sv\
g>\x0a\
\x00\x00\x01\x1f\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
12 3v12\x22/><path \
d=\x22M7 8l5-5 5 5\x22\
/><path d=\x22M5 14\
v5a1 1 0 0 0 1 1\
h12a1 1 0 0 0 1-\
1v-5\x22/></svg>\x0a\
\x00\x00\x00\xd6\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
5 9l7 7 7-7\x22/></\
svg>\x0a\
\x00\x00\x01\x02\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
4 20V4\x22/><path d\
=\x22M4 20h16\x22/><pa\
th d=\x22M7 15l4-5 \
3 3 5-7\x22/></svg>\
\x0a\
\x00\x00\x01\x10\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x2212\x22 cy=\x2212\x22 r=\
\x228\x22/><circle cx=\
\x2212\x22 cy=\x2212\x22 r=\x22\
3\x22 fill=\x22current\
Color\x22/></svg>\x0a\
\x00\x00\x01_\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x2212\x22 cy=\x2212\x22 r=\
\x223\x22/><path d=\x22M1\
2 2.8v2.4M12 18.\
8v2.4M21.2 12h-2\
.4M5.2 12H2.8M18\
.5 5.5l-1.7 1.7M\
7.2 16.8l-1.7 1.\
7M18.5 18.5l-1.7\
-1.7M7.2 7.2L5.5\
 5.5\x22/></svg>\x0a\
\x00\x00\x01 \
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
4 7h16\x22/><path d\
=\x22M9 7V4h6v3\x22/><\
path d=\x22M6 7l1 1\
3h10l1-13\x22/><pat\
h d=\x22M10 11v6M14\
 11v6\x22/></svg>\x0a\
\x00\x00\x01^\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x226\x22 cy=\x225\x22 r=\x222\
\x22/><circle cx=\x221\
8\x22 cy=\x225\x22 r=\x222\x22/\
><circle cx=\x2212\x22\
 cy=\x2219\x22 r=\x222\x22/>\
<path d=\x22M6 7v2a\
3 3 0 0 0 3 3h6a\
3 3 0 0 0 3-3V7\x22\
/><path d=\x22M12 1\
2v5\x22/></svg>\x0a\
\x00\x00\x01a\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><rect x=\x224\
\x22 y=\x227\x22 width=\x221\
6\x22 height=\x2212\x22 r\
x=\x223\x22/><path d=\x22\
M12 7V4\x22/><circl\
e cx=\x2212\x22 cy=\x223\x22\
 r=\x221\x22/><circle \
cx=\x229\x22 cy=\x2213\x22 r\
=\x221.2\x22/><circle \
cx=\x2215\x22 cy=\x2213\x22 \
r=\x221.2\x22/></svg>\x0a\
\
\x00\x00\x01\x07\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x2212\x22 cy=\x2212\x22 r=\
\x229\x22/><path d=\x22M1\
2 11v6\x22/><path d\
=\x22M12 7.5v.5\x22/><\
/svg>\x0a\
\x00\x00\x01K\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x226\x22 cy=\x226\x22 r=\x222\
\x22/><circle cx=\x226\
\x22 cy=\x2218\x22 r=\x222\x22/\
><circle cx=\x2218\x22\
 cy=\x228\x22 r=\x222\x22/><\
path d=\x22M6 8v8\x22/\
><path d=\x22M18 10\
a6 6 0 0 1-6 6H8\
\x22/></svg>\x0a\
\x00\x00\x01$\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
4 4l6 6M20 4l-6 \
6M4 20l6-6M20 20\
l-6-6\x22/><path d=\
\x22M10 6v4H6M14 6v\
4h4M10 18v-4H6M1\
4 18v-4h4\x22/></sv\
g>\x0a\
\x00\x00\x00\xde\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
6 6l12 12M18 6L6\
 18\x22/></svg>\x0a\
\x00\x00\x00\xf1\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x2212\x22 cy=\x2212\x22 r=\
\x229\x22/><path d=\x22M8\
 8l8 8\x22/></svg>\x0a\
\
\x00\x00\x01Y\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
3 7a2 2 0 0 1 2-\
2h4l2 2h8a2 2 0 \
0 1 2 2v1\x22/><pat\
h d=\x22M3 7v11a1 1\
 0 0 0 1 1h14.5a\
1 1 0 0 0 1-.8L2\
1.5 11a1 1 0 0 0\
-1-1.2H7.3a1 1 0\
 0 0-1 .8L4 19\x22/\
></svg>\x0a\
\x00\x00\x01\x12\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
12 3l2.6 5.6 6.1\
.7-4.5 4.2 1.2 6\
L12 16.5 6.6 19.\
5l1.2-6L3.3 9.3l\
6.1-.7z\x22/></svg>\
\x0a\
\x00\x00\x01H\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x226\x22 cy=\x225\x22 r=\x222\
\x22/><circle cx=\x226\
\x22 cy=\x2219\x22 r=\x222\x22/\
><circle cx=\x2218\x22\
 cy=\x2212\x22 r=\x222\x22/>\
<path d=\x22M6 7v10\
\x22/><path d=\x22M6 9\
c0 3 3 3 10 3\x22/>\
</svg>\x0a\
\x00\x00\x01~\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 64 64\x22 width\
=\x2264\x22 height=\x2264\
\x22><rect x=\x224\x22 y=\
\x224\x22 width=\x2256\x22 h\
eight=\x2256\x22 rx=\x221\
4\x22 fill=\x22#3b5bdb\
\x22/><path d=\x22M22 \
48V20h12a9 9 0 0\
 1 0 18H22\x22 fill\
=\x22none\x22 stroke=\x22\
#ffffff\x22 stroke-\
width=\x226\x22 stroke\
-linecap=\x22round\x22\
 stroke-linejoin\
=\x22round\x22/><path \
d=\x22M33 38l9 10\x22 \
fill=\x22none\x22 stro\
ke=\x22#ffd43b\x22 str\
oke-width=\x226\x22 st\
roke-linecap=\x22ro\
und\x22/></svg>\x0a\
\x00\x00\x00\xfc\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x2212\x22 cy=\x228\x22 r=\x22\
4\x22/><path d=\x22M4 \
21a8 8 0 0 1 16 \
0\x22/></svg>\x0a\
\x00\x00\x016\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
14.7 6.3a4 4 0 0\
 0-5.4 5.1L3.5 1\
7.2a1.8 1.8 0 0 \
0 2.6 2.6l5.8-5.\
8a4 4 0 0 0 5.1-\
5.4l-2.4 2.4-2.3\
-.6-.6-2.3z\x22/></\
svg>\x0a\
\x00\x00\x00\xf8\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
20 11a8 8 0 1 0-\
2.3 5.7\x22/><path \
d=\x22M20 4v7h-7\x22/>\
</svg>\x0a\
\x00\x00\x013\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><rect x=\x228\
\x22 y=\x228\x22 width=\x221\
2\x22 height=\x2212\x22 r\
x=\x222\x22/><path d=\x22\
M16 8V5a1 1 0 0 \
0-1-1H5a1 1 0 0 \
0-1 1v10a1 1 0 0\
 0 1 1h3\x22/></svg\
>\x0a\
\x00\x00\x01(\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><rect x=\x223\
\x22 y=\x224\x22 width=\x221\
8\x22 height=\x2216\x22 r\
x=\x222\x22/><circle c\
x=\x229\x22 cy=\x2210\x22 r=\
\x222\x22/><path d=\x22M2\
1 16l-5-5-9 9\x22/>\
</svg>\x0a\
\x00\x00\x00\xfe\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x2210.5\x22 cy=\x2210.5\
\x22 r=\x226.5\x22/><path\
 d=\x22M20 20l-4.8-\
4.8\x22/></svg>\x0a\
\x00\x00\x01[\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x2212\x22 cy=\x2212\x22 r=\
\x222.5\x22 fill=\x22curr\
entColor\x22/><path\
 d=\x22M7.8 7.8a6 6\
 0 0 0 0 8.4M16.\
2 7.8a6 6 0 0 1 \
0 8.4M5 5a10 10 \
0 0 0 0 14M19 5a\
10 10 0 0 1 0 14\
\x22/></svg>\x0a\
\x00\x00\x01\x1e\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><rect x=\x223\
\x22 y=\x224\x22 width=\x221\
8\x22 height=\x2214\x22 r\
x=\x222\x22/><path d=\x22\
M7 9l3 2.5L7 14\x22\
/><path d=\x22M12 1\
4h5\x22/></svg>\x0a\
\x00\x00\x00\xf5\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
4 5h16v10H9l-5 4\
z\x22/><path d=\x22M8 \
9h8M8 12h5\x22/></s\
vg>\x0a\
\x00\x00\x00\xd6\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
9 5l7 7-7 7\x22/></\
svg>\x0a\
\x00\x00\x01\x11\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
4 4h16v4H4z\x22/><p\
ath d=\x22M7 12h10\x22\
/><path d=\x22M9 16\
h6\x22/><path d=\x22M1\
1 20h2\x22/></svg>\x0a\
\
\x00\x00\x01\x01\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><path d=\x22M\
12 3l10 18H2z\x22/>\
<path d=\x22M12 10v\
5\x22/><path d=\x22M12\
 18v.5\x22/></svg>\x0a\
\
\x00\x00\x01\x13\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><rect x=\x225\
\x22 y=\x2210\x22 width=\x22\
14\x22 height=\x2210\x22 \
rx=\x222\x22/><path d=\
\x22M8 10V7a4 4 0 0\
 1 8 0v3\x22/></svg\
>\x0a\
\x00\x00\x00\xf8\
<\
svg xmlns=\x22http:\
//www.w3.org/200\
0/svg\x22 viewBox=\x22\
0 0 24 24\x22 width\
=\x2224\x22 height=\x2224\
\x22 fill=\x22none\x22 st\
roke=\x22currentCol\
or\x22 stroke-width\
=\x221.8\x22 stroke-li\
necap=\x22round\x22 st\
roke-linejoin=\x22r\
ound\x22><circle cx\
=\x2212\x22 cy=\x2212\x22 r=\
\x224\x22/><path d=\x22M2\
 12h6M16 12h6\x22/>\
</svg>\x0a\
"

qt_resource_name = b"\
\x00\x05\
\x00o\xa6S\
\x00i\
\x00c\x00o\x00n\x00s\
\x00\x06\
\x07\xac\x02\xc3\
\x00s\
\x00t\x00y\x00l\x00e\x00s\
\x00\x0b\
\x08\xf2\x93\xa3\
\x000\
\x000\x00_\x00b\x00a\x00s\x00e\x00.\x00q\x00s\x00s\
\x00\x0f\
\x0a\xc9x\x87\
\x00c\
\x00h\x00e\x00c\x00k\x00-\x00l\x00i\x00g\x00h\x00t\x00.\x00s\x00v\x00g\
\x00\x13\
\x0cO\xd6'\
\x00a\
\x00r\x00r\x00o\x00w\x00-\x00d\x00o\x00w\x00n\x00-\x00d\x00a\x00r\x00k\x00.\x00s\
\x00v\x00g\
\x00\x14\
\x01\xeee\xa7\
\x00a\
\x00r\x00r\x00o\x00w\x00-\x00d\x00o\x00w\x00n\x00-\x00l\x00i\x00g\x00h\x00t\x00.\
\x00s\x00v\x00g\
\x00\x12\
\x0eW\x05\x87\
\x00a\
\x00r\x00r\x00o\x00w\x00-\x00u\x00p\x00-\x00l\x00i\x00g\x00h\x00t\x00.\x00s\x00v\
\x00g\
\x00\x0d\
\x04\xfa\x88\xe3\
\x001\
\x000\x00_\x00p\x00a\x00n\x00e\x00l\x00s\x00.\x00q\x00s\x00s\
\x00\x11\
\x0d\xb8X'\
\x00a\
\x00r\x00r\x00o\x00w\x00-\x00u\x00p\x00-\x00d\x00a\x00r\x00k\x00.\x00s\x00v\x00g\
\
\x00\x0e\
\x06\x01\x87\xe7\
\x00c\
\x00h\x00e\x00c\x00k\x00-\x00d\x00a\x00r\x00k\x00.\x00s\x00v\x00g\
\x00\x09\
\x09e\x83\xe7\
\x00e\
\x00r\x00r\x00o\x00r\x00.\x00s\x00v\x00g\
\x00\x08\
\x0f\xc9W\x87\
\x00d\
\x00i\x00f\x00f\x00.\x00s\x00v\x00g\
\x00\x0d\
\x01;\x17G\
\x00r\
\x00e\x00a\x00s\x00o\x00n\x00i\x00n\x00g\x00.\x00s\x00v\x00g\
\x00\x0a\
\x0a\xc8\xf6\x87\
\x00f\
\x00o\x00l\x00d\x00e\x00r\x00.\x00s\x00v\x00g\
\x00\x0a\
\x06\x9a\xc4'\
\x00e\
\x00x\x00p\x00o\x00r\x00t\x00.\x00s\x00v\x00g\
\x00\x10\
\x0e\x17\x06\x87\
\x00c\
\x00h\x00e\x00v\x00r\x00o\x00n\x00-\x00d\x00o\x00w\x00n\x00.\x00s\x00v\x00g\
\x00\x09\
\x08\xb6\xaf\x87\
\x00s\
\x00t\x00a\x00t\x00s\x00.\x00s\x00v\x00g\
\x00\x0a\
\x00\xcc\xaf\xa7\
\x00a\
\x00c\x00t\x00i\x00v\x00e\x00.\x00s\x00v\x00g\
\x00\x0c\
\x0b\xdf,\xc7\
\x00s\
\x00e\x00t\x00t\x00i\x00n\x00g\x00s\x00.\x00s\x00v\x00g\
\x00\x09\
\x08\x9b\xad\xc7\
\x00t\
\x00r\x00a\x00s\x00h\x00.\x00s\x00v\x00g\
\x00\x08\
\x06\x8eWg\
\x00f\
\x00o\x00r\x00k\x00.\x00s\x00v\x00g\
\x00\x0d\
\x09\x03N'\
\x00a\
\x00s\x00s\x00i\x00s\x00t\x00a\x00n\x00t\x00.\x00s\x00v\x00g\
\x00\x08\
\x04\xd2T\xc7\
\x00i\
\x00n\x00f\x00o\x00.\x00s\x00v\x00g\
\x00\x0a\
\x04\x96k\xc7\
\x00b\
\x00r\x00a\x00n\x00c\x00h\x00.\x00s\x00v\x00g\
\x00\x0e\
\x04\xed\xb5\x07\
\x00c\
\x00o\x00m\x00p\x00a\x00c\x00t\x00i\x00o\x00n\x00.\x00s\x00v\x00g\
\x00\x09\
\x06\x98\x8e\xa7\
\x00c\
\x00l\x00o\x00s\x00e\x00.\x00s\x00v\x00g\
\x00\x0b\
\x0axw\xe7\
\x00a\
\x00b\x00o\x00r\x00t\x00e\x00d\x00.\x00s\x00v\x00g\
\x00\x08\
\x06\xc1T\x07\
\x00o\
\x00p\x00e\x00n\x00.\x00s\x00v\x00g\
\x00\x08\
\x0cBW\x87\
\x00d\
\x00e\x00m\x00o\x00.\x00s\x00v\x00g\
\x00\x0c\
\x03(\x22\x87\
\x00t\
\x00i\x00m\x00e\x00l\x00i\x00n\x00e\x00.\x00s\x00v\x00g\
\x00\x0c\
\x03\x84\x1d\x87\
\x00r\
\x00h\x00o\x00-\x00d\x00e\x00s\x00k\x00.\x00s\x00v\x00g\
\x00\x08\
\x09\xc5UG\
\x00u\
\x00s\x00e\x00r\x00.\x00s\x00v\x00g\
\x00\x08\
\x06_U\xa7\
\x00t\
\x00o\x00o\x00l\x00.\x00s\x00v\x00g\
\x00\x0a\
\x05xB\xa7\
\x00r\
\x00e\x00l\x00o\x00a\x00d\x00.\x00s\x00v\x00g\
\x00\x08\
\x06|W\x87\
\x00c\
\x00o\x00p\x00y\x00.\x00s\x00v\x00g\
\x00\x09\
\x07\xd8\xba\xa7\
\x00i\
\x00m\x00a\x00g\x00e\x00.\x00s\x00v\x00g\
\x00\x0a\
\x08\x94m\xc7\
\x00s\
\x00e\x00a\x00r\x00c\x00h\x00.\x00s\x00v\x00g\
\x00\x08\
\x00\xc8T\xa7\
\x00l\
\x00i\x00v\x00e\x00.\x00s\x00v\x00g\
\x00\x0a\
\x0a\xb3;\x87\
\x00s\
\x00y\x00s\x00t\x00e\x00m\x00.\x00s\x00v\x00g\
\x00\x10\
\x09\xe8\xf2\xe7\
\x00c\
\x00o\x00n\x00v\x00e\x00r\x00s\x00a\x00t\x00i\x00o\x00n\x00.\x00s\x00v\x00g\
\x00\x11\
\x0e\x92xG\
\x00c\
\x00h\x00e\x00v\x00r\x00o\x00n\x00-\x00r\x00i\x00g\x00h\x00t\x00.\x00s\x00v\x00g\
\
\x00\x0b\
\x07s\x92\x07\
\x00c\
\x00o\x00m\x00p\x00a\x00c\x00t\x00.\x00s\x00v\x00g\
\x00\x0b\
\x00\xb5Hg\
\x00w\
\x00a\x00r\x00n\x00i\x00n\x00g\x00.\x00s\x00v\x00g\
\x00\x0c\
\x047\x83'\
\x00p\
\x00r\x00o\x00v\x00i\x00d\x00e\x00r\x00.\x00s\x00v\x00g\
\x00\x0a\
\x04\x0a\x16G\
\x00c\
\x00o\x00m\x00m\x00i\x00t\x00.\x00s\x00v\x00g\
"

qt_resource_struct = b"\
\x00\x00\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x01\
\x00\x00\x00\x00\x00\x00\x00\x00\
\x00\x00\x00\x00\x00\x02\x00\x00\x00#\x00\x00\x00\x0b\
\x00\x00\x00\x00\x00\x00\x00\x00\
\x00\x00\x00\x10\x00\x02\x00\x00\x00\x08\x00\x00\x00\x03\
\x00\x00\x00\x00\x00\x00\x00\x00\
\x00\x00\x00\x8e\x00\x00\x00\x00\x00\x01\x00\x00\x1c\xbe\
\x00\x00\x01\xa2J\xce\x07\xbe\
\x00\x00\x00\xe6\x00\x00\x00\x00\x00\x01\x00\x00\x1ei\
\x00\x00\x01\xa2J\xce\x07\xbe\
\x00\x00\x01.\x00\x00\x00\x00\x00\x01\x00\x00&\x9a\
\x00\x00\x01\xa2J\xce\x07\xbe\
\x00\x00\x00\x22\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\
\x00\x00\x01\xa2J\xd5i\xcc\
\x00\x00\x00>\x00\x00\x00\x00\x00\x01\x00\x00\x1b\x0b\
\x00\x00\x01\xa2J\xce\x07\xbe\
\x00\x00\x00b\x00\x00\x00\x00\x00\x01\x00\x00\x1b\xe9\
\x00\x00\x01\xa2J\xce\x07\xbe\
\x00\x00\x01\x06\x00\x00\x00\x00\x00\x01\x00\x00%\xc4\
\x00\x00\x01\xa2J\xce\x07\xbe\
\x00\x00\x00\xbc\x00\x00\x00\x00\x00\x01\x00\x00\x1d\x93\
\x00\x00\x01\xa2J\xce\x07\xbe\
\x00\x00\x04\xac\x00\x00\x00\x00\x00\x01\x00\x00K\xda\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x04\x12\x00\x00\x00\x00\x00\x01\x00\x00Fq\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x02\x10\x00\x00\x00\x00\x00\x01\x00\x00.\xda\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x01~\x00\x00\x00\x00\x00\x01\x00\x00)~\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03H\x00\x00\x00\x00\x00\x01\x00\x00=\x08\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03f\x00\x00\x00\x00\x00\x01\x00\x00>T\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x04\xe6\x00\x00\x00\x00\x00\x01\x00\x00M\xf6\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x04\xc8\x00\x00\x00\x00\x00\x01\x00\x00L\xdf\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x02\xac\x00\x00\x00\x00\x00\x01\x00\x006G\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x02\x96\x00\x00\x00\x00\x00\x01\x00\x005<\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x02\xc6\x00\x00\x00\x00\x00\x01\x00\x007\x96\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03\xb0\x00\x00\x00\x00\x00\x01\x00\x00B\x10\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03\x9a\x00\x00\x00\x00\x00\x01\x00\x00@\xd6\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03\xca\x00\x00\x00\x00\x00\x01\x00\x00C\x0c\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x02`\x00\x00\x00\x00\x00\x01\x00\x002u\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x02\xe8\x00\x00\x00\x00\x00\x01\x00\x008\xbe\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x01\xb8\x00\x00\x00\x00\x00\x01\x00\x00+\xd7\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03\x1c\x00\x00\x00\x00\x00\x01\x00\x00:\x95\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x04\x90\x00\x00\x00\x00\x00\x01\x00\x00J\xc5\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03\xe0\x00\x00\x00\x00\x00\x01\x00\x00DC\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03\xf8\x00\x00\x00\x00\x00\x01\x00\x00Eo\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x02H\x00\x00\x00\x00\x00\x01\x00\x001Q\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x01\xf8\x00\x00\x00\x00\x00\x01\x00\x00-\xd4\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x02v\x00\x00\x00\x00\x00\x01\x00\x003\xd7\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x01P\x00\x00\x00\x00\x00\x01\x00\x00'x\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03\x84\x00\x00\x00\x00\x00\x01\x00\x00?\xd6\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x04B\x00\x00\x00\x00\x00\x01\x00\x00H\xf2\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x03\x00\x00\x00\x00\x00\x00\x01\x00\x009\xa0\
\x00\x00\x01\xa2J\xce\x07\xbc\
\x00\x00\x04(\x00\x00\x00\x00\x00\x01\x00\x00G\xd0\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x01\x9e\x00\x00\x00\x00\x00\x01\x00\x00*\xbf\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x02*\x00\x00\x00\x00\x00\x01\x00\x00/\xee\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x032\x00\x00\x00\x00\x00\x01\x00\x00;\xf2\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x01\xd2\x00\x00\x00\x00\x00\x01\x00\x00,\xfa\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x04h\x00\x00\x00\x00\x00\x01\x00\x00I\xeb\
\x00\x00\x01\xa2J\xce\x07\xbd\
\x00\x00\x01h\x00\x00\x00\x00\x00\x01\x00\x00(w\
\x00\x00\x01\xa2J\xce\x07\xbd\
"


def qInitResources():
    QtCore.qRegisterResourceData(0x03, qt_resource_struct, qt_resource_name, qt_resource_data)


def qCleanupResources():
    QtCore.qUnregisterResourceData(0x03, qt_resource_struct, qt_resource_name, qt_resource_data)


qInitResources()
